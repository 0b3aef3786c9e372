import { scanPrompt } from '../analysis/extract-tags.js';
import type { WorkflowGraph } from '../analysis/workflow-graph.js';
import { workerStem } from '../../machines/worker-names.js';

/**
 * Which agent ids a run of a workflow can have, as test lint reads them:
 * `main`, and workers named `{parent}_{stem}{n}` (machines/worker-names.ts)
 * where each stem comes from a `<fork>` target of the workflow or of the
 * test's own replies.
 */
export interface AgentIdRule {
  /** Whether anything forks: without a fork, `main` is the only agent. */
  forks: boolean;
  /** Why an id cannot exist, or undefined when it can. */
  problem(id: string): string | undefined;
}

/** A worker's part of an id: its stem (no trailing digit) and its number. */
const WORKER_PART = /^([a-z0-9]*[a-z])([1-9]\d*)$/;
/** A parent's part shortened to keep ids short: its first part and a hash (worker-names.ts). */
const SHORTENED = /^[a-z0-9]+-[0-9a-f]{16}$/;

/**
 * The rule for a workflow's agent ids. `texts` are the test's replies and
 * stubbed outputs: a reply may fork where the prompt never says so. A fork
 * whose target is built at run time, or that runs another workflow (its
 * worker is named after that workflow), may name any worker: then only
 * `main` and forks at all are checked.
 */
export function agentIdRule(graph: WorkflowGraph, texts: readonly string[]): AgentIdRule {
  const stems = new Set<string>();
  let forks = false;
  let anyStem = false;
  for (const node of graph.nodes)
    for (const t of node.transitions) {
      if (t.tag === 'fork-workflow') [forks, anyStem] = [true, true];
      if (t.tag !== 'fork') continue;
      forks = true;
      if (t.target.dynamic) anyStem = true;
      // A target that names no state (lint's unknown-target) still names its workers.
      for (const f of t.target.files.length > 0 ? t.target.files : [t.target.written])
        stems.add(workerStem(f));
    }
  for (const text of texts)
    for (const tag of scanPrompt(text).tags) {
      if (tag.tag === 'fork-workflow') [forks, anyStem] = [true, true];
      if (tag.tag !== 'fork') continue;
      forks = true;
      if (tag.dynamic.includes('body')) anyStem = true;
      else stems.add(workerStem(tag.body));
    }
  const known = [...stems].sort().join(', ');
  return {
    forks,
    problem(id) {
      if (id === 'main') return undefined;
      if (!forks) return 'the workflow has no <fork>, so its only agent is main';
      if (anyStem) return undefined;
      const [first = '', ...parts] = id.split('_');
      if ((first !== 'main' && !SHORTENED.test(first)) || parts.length === 0)
        return 'agents are main and its workers, {parent}_{stem}{n} (main_worker1)';
      for (const part of parts) {
        const m = WORKER_PART.exec(part);
        if (!m) return `${part} is not a worker's {stem}{n} (worker1)`;
        if (!stems.has(m[1]!))
          return `no <fork> makes a "${m[1]}" worker (its targets give ${known})`;
      }
      return undefined;
    },
  };
}
