import { statesThatAsk } from '../analysis/ask-scan.js';
import { scanPrompt } from '../analysis/extract-tags.js';
import { CHECKS, type CheckId } from '../analysis/lint-checks-table.js';
import { pathEntry } from './path-entry.js';
import type { Finding } from '../analysis/lint-workflow.js';
import type { WorkflowGraph } from '../analysis/workflow-graph.js';
import { stem, type WorkflowNode } from '../analysis/workflow-node.js';
import { closestName } from '../closest-name.js';
import { agentIdRule, type AgentIdRule } from './test-lint-agents.js';
import type { LoadedTest } from './test-file.js';
import type { Answer, Turn } from './test-spec-schema.js';

/**
 * Lint of a workflow test file against its workflow's graph: the states it
 * names, the kind of state each reply or stub is for, the asks it answers
 * and the agents it expects. Reports lint's own findings, on the test file.
 */
export function lintTest(test: LoadedTest, graph: WorkflowGraph): Finding[] {
  const findings: Finding[] = [];
  const report = (check: CheckId, message: string) =>
    findings.push({ check, severity: CHECKS[check], file: test.file, message });
  const spec = test.spec;
  const names = [...new Set(graph.nodes.flatMap((n) => [stem(n.file), n.file]))];
  // A callee workflow's states may be named too (a run goes through them): lint cannot list them.
  const callsOut = graph.nodes.some((n) => n.transitions.some((t) => t.workflow));
  const lookup = (name: string, where: string): WorkflowNode[] | undefined => {
    const found = graph.nodes.filter((n) => n.file === name || stem(n.file) === name);
    if (found.length > 0 || callsOut) return found;
    const meant = closestName(name, names);
    report(
      'test-unknown-state',
      `${where} names state ${name}, which the workflow does not have${meant ? ` (did you mean ${meant}?)` : ''}`,
    );
    return undefined;
  };

  const replies = Object.entries(spec.replies ?? {});
  const stubs = Object.entries(spec.scripts ?? {});
  const texts = new Map<string, string[]>();
  const addText = (nodes: WorkflowNode[], text: string) => {
    for (const n of nodes) texts.set(n.file, [...(texts.get(n.file) ?? []), text]);
  };
  for (const [name, turns] of replies) {
    const nodes = lookup(name, 'replies');
    if (!nodes?.length) continue;
    if (!nodes.some((n) => n.kind === 'markdown'))
      report(
        'test-wrong-state-kind',
        `replies give turns to ${name}, a script state: a script prints its own output (stub it under scripts: instead)`,
      );
    addText(nodes, turns.map((t) => (typeof t === 'string' ? t : t.text)).join('\n'));
  }
  for (const [name, stub] of stubs) {
    const nodes = lookup(name, 'scripts');
    if (!nodes?.length) continue;
    if (!nodes.some((n) => n.kind === 'script'))
      report(
        'test-wrong-state-kind',
        `scripts stubs ${name}, a markdown state: only a script state takes a stub (give it replies: instead)`,
      );
    addText(nodes, stub.stdout ?? '');
  }

  const asking = new Set(statesThatAsk(graph));
  for (const [name] of Object.entries(spec.answers ?? {})) {
    const nodes = lookup(name, 'answers');
    if (!nodes?.length) continue;
    const asks = nodes.some(
      (n) => asking.has(n.file) || (texts.get(n.file) ?? []).some((t) => tagsOf(t).has('ask')),
    );
    if (!asks)
      report(
        'test-answer-without-ask',
        `answers for ${name}, which never asks: neither the state nor the test's replies for it hold an <ask>`,
      );
  }

  for (const [agent, path] of Object.entries(spec.expect?.paths ?? {}))
    for (const name of new Set(path.map((e) => pathEntry(e).state)))
      lookup(name, `expect.paths of ${agent}`);
  for (const name of new Set(spec.expect?.never ?? [])) lookup(name, 'expect.never');

  agentChecks(test, agentIdRule(graph, [...texts.values()].flat()), report);
  return findings;
}

/** The tags a reply or a stub's output holds. */
function tagsOf(text: string): Set<string> {
  return new Set(scanPrompt(text).tags.map((t) => t.tag));
}

/** Agent ids the test names, and turns or answers for fork attributes, checked against who can exist. */
function agentChecks(
  test: LoadedTest,
  rule: AgentIdRule,
  report: (check: CheckId, message: string) => void,
): void {
  const spec = test.spec;
  const named: Array<[string, string]> = [
    ...Object.keys(spec.expect?.paths ?? {}).map((id): [string, string] => ['expect.paths', id]),
    ...Object.keys(spec.expect?.results ?? {}).map((id): [string, string] => [
      'expect.results',
      id,
    ]),
  ];
  const targeted = (field: string, entries: Array<[string, Array<Turn | Answer>]>) => {
    for (const [state, items] of entries)
      for (const item of items) {
        if (typeof item === 'string') continue;
        if (item.agent !== undefined) named.push([`${field} of ${state}`, item.agent]);
        if (item.when !== undefined && !rule.forks)
          report(
            'test-impossible-agent',
            `${field} of ${state}: when: never matches, as the workflow has no <fork> and so no agent has fork attributes`,
          );
      }
  };
  targeted('replies', Object.entries(spec.replies ?? {}));
  targeted('answers', Object.entries(spec.answers ?? {}));
  for (const [where, id] of named) {
    const why = rule.problem(id);
    if (why)
      report('test-impossible-agent', `${where} names agent ${id}, which cannot exist: ${why}`);
  }
  const agents = spec.expect?.agents;
  if (agents !== undefined && agents > 1 && !rule.forks)
    report(
      'test-impossible-agent',
      `expect.agents is ${agents}, but the workflow has no <fork>: its only agent is main`,
    );
}
