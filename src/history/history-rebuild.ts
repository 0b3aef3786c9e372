import { defaultBackend } from '../agents/registry/registry.js';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { WorkflowState } from '../../machines/types.js';
import { readStateFile } from '../state/state-file.js';
import { loggedStep } from '../state/transition-log.js';
import {
  historyFiles,
  historyKey,
  historyRoot,
  workflowFingerprint,
  workflowShortName,
} from './history-paths.js';
import type { RunRecord, StepOutcomeKind, StepRecord } from './history-types.js';

/** Where a project's runs keep their state files: `raymond`'s, and `raymond serve`'s (its runs are `served`). */
const STATE_FOLDERS = [
  ['state', false],
  ['serve-state', true],
] as const;

/** The steps of one run, from its debug log's transitions.log (none when the run kept no debug log). */
function loggedSteps(projectRoot: string, state: WorkflowState): StepRecord[] {
  let text: string;
  try {
    text = readFileSync(
      join(projectRoot, '.raymond', 'debug', state.workflow_id, 'transitions.log'),
      'utf8',
    );
  } catch {
    return [];
  }
  const out: StepRecord[] = [];
  // A step's wall time is read as the time since its agent's last line; a worker's first step
  // since its parent's latest fork (a worker's id is its parent's and a suffix), else the run's start.
  const last = new Map<string, number>();
  const forked = new Map<string, number>();
  const started = Date.parse(state.started_at);
  for (const line of text.split('\n')) {
    const step = loggedStep(line);
    if (!step) continue;
    const since =
      last.get(step.agent) ??
      forked.get(step.agent.slice(0, step.agent.lastIndexOf('_'))) ??
      started;
    last.set(step.agent, step.at);
    if (step.kind === 'fork') forked.set(step.agent, step.at);
    const markdown = step.state.endsWith('.md');
    out.push({
      v: 1,
      run: state.workflow_id,
      at: step.at,
      agent: step.agent,
      state: step.state,
      // A state file does not say which CLI ran a step: the default's, as a workflow naming none.
      backend: markdown ? defaultBackend().name : 'script',
      turns: markdown ? 1 : 0,
      retries: 0,
      reminders: 0,
      costUsd: step.costUsd,
      tokens: 0,
      wallMs: Math.max(0, step.at - since),
      cpuMs: 0,
      outcome: (step.kind === 'paused' ? 'failed' : step.kind) as StepOutcomeKind,
      rebuilt: true,
    });
  }
  return out;
}

/** The run record a state file gives: its status, cost and agents as they stand. */
function runOf(state: WorkflowState, steps: number, served: boolean): RunRecord {
  return {
    v: 1,
    run: state.workflow_id,
    workflow: workflowShortName(state.scope.path),
    path: state.scope.path,
    fingerprint: workflowFingerprint(state.scope.fingerprints),
    source: state.options.queue ? 'queued' : served ? 'served' : 'local',
    startedAt: Date.parse(state.started_at),
    endedAt: Date.parse(state.updated_at),
    status: state.status,
    costUsd: state.total_cost_usd,
    steps,
    agents: state.agents.length,
    maxLive: state.agents.length,
    rebuilt: true,
  };
}

/**
 * Rebuilds a project's history from what its runs left: each state file
 * (with its journal; `raymond serve`'s runs too) gives a run record, and its debug log's transitions.log
 * the steps, with their cost and wall time (turns, tokens and CPU time are
 * not in them). Runs are read oldest first; a state file that cannot be read
 * is skipped. Returns how many runs it found.
 */
export async function rebuildHistory(projectRoot: string): Promise<number> {
  const states: WorkflowState[] = [];
  const served = new Set<WorkflowState>();
  for (const [folder, byServer] of STATE_FOLDERS) {
    const stateDir = join(projectRoot, '.raymond', folder);
    let names: string[];
    try {
      names = readdirSync(stateDir).filter((n) => n.endsWith('.json'));
    } catch {
      continue;
    }
    for (const name of names) {
      try {
        const state = await readStateFile(join(stateDir, name), basename(name, '.json'));
        states.push(state);
        if (byServer) served.add(state);
      } catch {
        // Damaged or half-written: `raymond --status` names it; the history goes on without it.
      }
    }
  }
  if (states.length === 0) return 0;
  states.sort((a, b) => a.started_at.localeCompare(b.started_at));
  const root = historyRoot(projectRoot);
  // Built aside and renamed into place: two processes that rebuild at once do not write it twice.
  const aside = `${root}.rebuild-${process.pid}`;
  // A rebuild killed before its rename left its folder; the logs are appended to, so it goes first.
  rmSync(aside, { recursive: true, force: true });
  const byKey = new Map<string, { steps: string[]; runs: string[] }>();
  for (const state of states) {
    const key = historyKey(state.scope);
    const into = byKey.get(key) ?? { steps: [], runs: [] };
    byKey.set(key, into);
    const steps = loggedSteps(projectRoot, state);
    for (const s of steps) into.steps.push(JSON.stringify(s));
    into.runs.push(JSON.stringify(runOf(state, steps.length, served.has(state))));
  }
  for (const [key, { steps, runs }] of byKey) {
    const files = historyFiles(aside, key);
    mkdirSync(files.dir, { recursive: true });
    writeFileSync(files.steps, steps.length ? `${steps.join('\n')}\n` : '', { flag: 'a' });
    writeFileSync(files.runs, `${runs.join('\n')}\n`, { flag: 'a' });
  }
  try {
    renameSync(aside, root);
  } catch {
    rmSync(aside, { recursive: true, force: true });
  }
  return states.length;
}
