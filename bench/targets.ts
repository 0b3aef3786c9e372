/**
 * The targets, in one place so the report and the summary agree.
 * Raymond's wall time against the plain loop's, same run, same machine.
 */
export const WALL_RATIO_TARGET = 1.35;

/** Peak RSS of the orchestrator and its spawners together, by the run's worker count. */
export function memoryTargetMb(workers: number): number {
  return workers >= 100000 ? 400 : workers >= 10000 ? 200 : 120;
}

/** The orchestrator's own CPU per script step, in ms, at any fan-out. */
export const CPU_PER_STEP_TARGET_MS = 0.35;

/** CPU per step at 100,000 workers against 1,000: flat means at most this. */
export const CPU_FLAT_TARGET = 1.2;

/** Raymond's wall time and CPU with warm sessions against live processes fed by hand. */
export const WARM_RATIO_TARGET = 1.5;

/** Peak RSS of the orchestrator alone holding 10,000 live idle agents. */
export const IDLE_TARGET_MB = 100;

/** Worktree bench: 40 workers' wall time against one reused worktree by hand. */
export const WORKTREE_RATIO_TARGET = 1.5;

/** Worktree bench: 40 sparse workers' wall time against the plain sparse loop. */
export const SPARSE_RATIO_TARGET = 2;

/**
 * Worktree bench: worktrees alive at once may exceed `--max-parallel` by this
 * many, and the disk under `.raymond/worktrees` that many checkouts.
 */
export const WORKTREE_SLACK = 4;

/**
 * Queue bench: speed-up of the same 40 markdown workers with this many
 * worker processes (fixed --concurrency each) against one (ideal: 2x, 4x).
 */
export const QUEUE_SPEEDUP_TARGETS: Readonly<Record<number, number>> = { 2: 1.6, 4: 2.8 };

/** Join bench: wall time of 1,000 joined script workers against the same fan-out without a join. */
export const JOIN_WALL_RATIO_TARGET = 1.15;

/** Join bench: what a parent waiting on 10,000 workers may add to the orchestrator's peak RSS. */
export const JOIN_MEMORY_TARGET_MB = 15;

/** Join bench: building the join state's input for 10,000 workers. */
export const JOIN_INPUT_TARGET_MS = 200;

/** History bench: wall time of the 1,000-worker fan-out with the run history against without it. */
export const HISTORY_RATIO_TARGET = 1.03;

/** History bench: `raymond stats` and `raymond plan` on a history of 100,000 runs. */
export const HISTORY_READ_TARGET_MS = 1000;

/** "met" or "NOT met", in capitals so a miss stands out in the output. */
export function verdict(met: boolean): string {
  return met ? 'met' : 'NOT met';
}
