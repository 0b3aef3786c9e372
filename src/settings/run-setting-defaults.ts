import { availableParallelism } from 'node:os';

// The defaults of the run settings, apart from the table so that the group files and their
// readers (config, resume, help) share them without importing the whole table.

/** Default step parallelism: one per core, at least two. */
export const DEFAULT_MAX_PARALLEL = Math.max(2, availableParallelism());

/** `--max-parallel` of a queued run when neither the flag nor the config gives one: the workers' --concurrency limits it. */
export const QUEUE_MAX_PARALLEL = 1000;

/** Seconds a step may print nothing before it is killed. */
export const DEFAULT_TIMEOUT_SECONDS = 600;

/** USD a run may cost before it starts no more steps. */
export const DEFAULT_BUDGET_USD = 10;

/** The default `--push-remote`. */
export const DEFAULT_PUSH_REMOTE = 'origin';
