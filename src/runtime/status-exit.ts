import type { RunStatus } from '../../machines/types.js';

/**
 * The exit code a run's final status gives (docs/reference/exit-codes.md):
 * `raymond run` exits with it, and `raymond test` checks a test's `exit:`
 * against it. A run still `running` when it returned was stopped: it failed.
 */
export const STATUS_EXIT = {
  completed: 0,
  failed: 1,
  running: 1,
  asking: 2,
  budget_exceeded: 3,
  paused: 4,
} as const satisfies Record<RunStatus, number>;
