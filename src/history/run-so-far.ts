import type { RunRecord, StepRecord } from './history-types.js';

/**
 * What the history holds of a run before it was resumed: its earlier
 * sessions' steps and forked workers, which the resumed session's run
 * record adds its own to. A session killed with SIGKILL wrote no run record,
 * so the figures come from the step records, which every session appended.
 */
export interface RunSoFar {
  steps: number;
  maxLive: number;
  /** Each worker's start state and what its steps cost, by agent id. */
  workers: Map<string, { state: string; costUsd: number }>;
}

/**
 * The run so far from its step records (in the order they were written) and
 * its latest run record; `workerIds` are the run's forked workers (agents
 * with a parent in its state), whose first step is at their start state.
 */
export function runSoFar(
  steps: readonly StepRecord[],
  record: RunRecord | undefined,
  workerIds: ReadonlySet<string>,
): RunSoFar {
  const workers = new Map<string, { state: string; costUsd: number }>();
  for (const r of steps) {
    if (!workerIds.has(r.agent)) continue;
    const w = workers.get(r.agent) ?? { state: r.state, costUsd: 0 };
    w.costUsd += r.costUsd;
    workers.set(r.agent, w);
  }
  return { steps: steps.length, maxLive: record?.maxLive ?? 0, workers };
}
