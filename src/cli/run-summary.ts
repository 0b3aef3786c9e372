import { usd } from '../../machines/money.js';
import type { RunEvent } from '../../machines/run-events.js';
import type { RunOutcome } from '../runtime/run-types.js';
import type { PermissionDenial, RunProgress } from '../runtime/run-progress.js';
import { duration } from './text-layout.js';

/** The event a run ends with. */
export type RunFinished = Extract<RunEvent, { type: 'run.finished' }>;

/**
 * Adds a later part of the same command's run (after waiting for a usage
 * limit to reset) to what came before: steps and running time add up, the
 * status and cost are the latest.
 */
export function joinFinished(before: RunFinished | undefined, after: RunFinished): RunFinished {
  return before
    ? { ...after, steps: before.steps + after.steps, elapsedMs: before.elapsedMs + after.elapsedMs }
    : after;
}

/** `0.4s` for short runs and steps, where whole seconds would say nothing; `3m07s` beyond. */
export function elapsed(ms: number): string {
  return ms < 10_000 ? `${(Math.max(0, ms) / 1000).toFixed(1)}s` : duration(ms);
}

/**
 * The line a run ends with on stderr: its status (`interrupted` when the user
 * stopped it), steps and time, the agents that ended, failed, paused or were
 * left unfinished, and the cost against the budget. Made from the run's last
 * event and the figures kept from its events, never by reading the state file
 * again.
 */
export function summaryLine(
  finished: RunFinished,
  progress: RunProgress,
  interrupted: boolean,
): string {
  // A run stopped by the user keeps status running in its state file; one that failed or ended meanwhile says so.
  const status = interrupted && finished.status === 'running' ? 'interrupted' : finished.status;
  const c = progress.counts;
  const agents = [`${c.terminated - progress.failed} done`, `${progress.failed} failed`];
  if (c.paused > 0) agents.push(`${c.paused} paused`);
  if (c.asking > 0) agents.push(`${c.asking} asking`);
  // Each live agent has one top frame, idle or invoking; callers awaiting a callee are not agents.
  const unfinished = c.idle + c.invoking;
  if (unfinished > 0) agents.push(`${unfinished} unfinished`);
  const budget = progress.budgetUsd > 0 ? usd(progress.budgetUsd) : 'unlimited';
  const steps = `${finished.steps} step${finished.steps === 1 ? '' : 's'}`;
  const n = progress.denials.length;
  const denied = n > 0 ? `; ${n} tool call${n === 1 ? '' : 's'} denied` : '';
  return `run ${finished.workflowId} ${status}: ${steps} in ${elapsed(finished.elapsedMs)}; agents ${agents.join(', ')}${denied}; cost ${usd(finished.totalCostUsd)} of ${budget}`;
}

/** The object `--json` prints: the run's id, status, cost, results and denials, its error and worktrees when it has them. */
export function jsonSummary(
  outcome: Partial<RunOutcome> & { status: string; error?: string },
  denials: readonly PermissionDenial[] = [],
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    workflow_id: outcome.workflowId ?? null,
    status: outcome.status,
    total_cost_usd: outcome.totalCostUsd ?? 0,
    results: outcome.results ?? {},
    permission_denials: denials,
  };
  if (outcome.error !== undefined) out.error = outcome.error;
  if (outcome.worktrees?.length) {
    out.worktrees = outcome.worktrees.map(worktreeJson);
    const pool = outcome.worktreePool;
    if (pool)
      out.worktree_pool = {
        created: pool.created,
        reused: pool.reused,
        peak_alive: pool.peakAlive,
      };
  }
  return out;
}

function worktreeJson(w: RunOutcome['worktrees'][number]) {
  return {
    agent: w.agent,
    branch: w.branch,
    base: w.base,
    mode: w.mode ?? 'off',
    sparse: w.sparse ?? null,
    path: w.path ?? null,
    commits: w.commits ?? null,
    diffstat: w.diffstat ?? null,
    dirty: w.dirty ?? null,
    saved: w.saved ?? null,
    removed: w.removed ?? false,
    ...(w.pushed ? { pushed: w.pushed } : {}),
  };
}

const pooledRef = (w: RunOutcome['worktrees'][number]) =>
  w.mode === 'keep-ignored' || w.mode === 'clean';

/** The head of the worktree summary: what the pool cost, when there was one. */
export function worktreeHeader(outcome: Pick<RunOutcome, 'worktrees' | 'worktreePool'>): string {
  const pool = outcome.worktreePool;
  if (!outcome.worktrees.some(pooledRef) || pool.peakAlive === 0) return 'worktrees:';
  return `worktrees (${outcome.worktrees.length} branches; pooled folders: at most ${pool.peakAlive} alive, ${pool.created} checked out, reused ${pool.reused} times):`;
}

/** One line per worktree: branch, commits and diffstat, or what became of it (`merged`: where `raymond merge` took each agent's branch). */
export function worktreeLines(
  worktrees: RunOutcome['worktrees'],
  merged: ReadonlyMap<string, string> = new Map(),
): string[] {
  return worktrees.map((w) => {
    if (w.removed)
      return `  ${w.agent}: ${w.branch} had no changes; ${pooledRef(w) ? 'branch deleted' : 'worktree and branch removed'}`;
    if (w.commits === undefined)
      return `  ${w.agent}: ${w.branch} ${w.path === undefined ? '(not started)' : `(still working) at ${w.path}`}`;
    const changes = w.diffstat ? `, ${w.diffstat}` : '';
    const left = w.saved
      ? `; it left uncommitted work, saved as commit ${w.saved.slice(0, 10)}`
      : w.dirty
        ? ', uncommitted changes'
        : '';
    // A pooled folder went on to another agent, or the folder is on a worker: the branch is where the work is.
    const where = w.pushed ? `; pushed to ${w.pushed}` : pooledRef(w) ? '' : ` at ${w.path}`;
    const into = merged.has(w.agent) ? `; merged into ${merged.get(w.agent)}` : '';
    return `  ${w.agent}: ${w.branch}: ${w.commits} commit${w.commits === 1 ? '' : 's'}${changes}${left}${where}${into}`;
  });
}
