import type { RunEvent } from '../../machines/run-events.js';
import type { RunProgress } from '../runtime/run-progress.js';
import { duration } from './text-layout.js';

/** The event a run ends with. */
export type RunFinished = Extract<RunEvent, { type: 'run.finished' }>;

/**
 * Adds a later part of the same command's run (after waiting for a usage
 * limit to reset) to what came before: steps and running time add up, the
 * status and cost are the latest.
 */
export function joinFinished(before: RunFinished | undefined, after: RunFinished): RunFinished {
  return before ? { ...after, steps: before.steps + after.steps, elapsedMs: before.elapsedMs + after.elapsedMs } : after;
}

/** `0.4s` for short runs, where whole seconds would say nothing; `3m07s` beyond. */
function elapsed(ms: number): string {
  return ms < 10_000 ? `${(Math.max(0, ms) / 1000).toFixed(1)}s` : duration(ms);
}

/**
 * The line a run ends with on stderr: its status (`interrupted` when the user
 * stopped it), steps and time, the agents that ended, failed, paused or were
 * left unfinished, and the cost against the budget. Made from the run's last
 * event and the figures kept from its events, never by reading the state file
 * again.
 */
export function summaryLine(finished: RunFinished, progress: RunProgress, interrupted: boolean): string {
  // A run stopped by the user keeps status running in its state file; one that failed or ended meanwhile says so.
  const status = interrupted && finished.status === 'running' ? 'interrupted' : finished.status;
  const c = progress.counts;
  const agents = [`${c.terminated - progress.failed} done`, `${progress.failed} failed`];
  if (c.paused > 0) agents.push(`${c.paused} paused`);
  if (c.asking > 0) agents.push(`${c.asking} asking`);
  // Each live agent has one top frame, idle or invoking; callers awaiting a callee are not agents.
  const unfinished = c.idle + c.invoking;
  if (unfinished > 0) agents.push(`${unfinished} unfinished`);
  const budget = progress.budgetUsd > 0 ? `$${progress.budgetUsd.toFixed(2)}` : 'unlimited';
  const steps = `${finished.steps} step${finished.steps === 1 ? '' : 's'}`;
  const n = progress.denials.length;
  const denied = n > 0 ? `; ${n} tool call${n === 1 ? '' : 's'} denied` : '';
  return `run ${finished.workflowId} ${status}: ${steps} in ${elapsed(finished.elapsedMs)}; agents ${agents.join(', ')}${denied}; cost $${finished.totalCostUsd.toFixed(4)} of ${budget}`;
}
