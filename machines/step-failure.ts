import type { WorktreeStart } from './worktree-types.js';

/**
 * Why a step failed, as plain JSON: it travels from the step actor to the
 * supervisor, into events and into the state file. Whether the agent pauses
 * (resumable) or the run fails is decided once, where the failure is made,
 * and read only by the supervisor.
 */
export interface StepFailure {
  kind: 'step-failure';
  /** The error's permanent code (`ERR_SCRIPT_FAILED`, ...). */
  code: string;
  /** The raw message, without the file prefix. */
  message: string;
  /** The state file the failure is about, as shown to the user. */
  file?: string;
  /** True: pause this agent and let the others go on; false: fail the agent (and the run, unless it is a forked worker). */
  pauses: boolean;
  /**
   * The run cannot go on, whichever agent met it: a full disk, or a bug of
   * ours. Even a forked worker's such failure stops the run at once.
   */
  halts?: true;
  /** What the step cost before it failed: still charged. */
  spentUsd: number;
  /** Last known total cost of each Claude Code session the step used. */
  sessionCosts: Record<string, number>;
  /** A usage limit's reset time (epoch ms), when known. */
  resetsAt?: number;
  /** `--budget-hard` stopped the step's turn as the run reached its budget: charging it spends the budget. */
  budget?: true;
  /** The session a turn `--budget-hard` stopped ran in: its agent goes on in it. */
  session?: string;
  /** Extra detail for --verbose (a stack trace for internal errors). */
  detail?: string;
  /** Where the agent's next attempt starts in its worktree: the folder as this step left it. */
  startsNext?: WorktreeStart;
}

/** The one-line text of a failure: `file: message`. */
export function failureText(failure: Pick<StepFailure, 'file' | 'message'>): string {
  return failure.file ? `${failure.file}: ${failure.message}` : failure.message;
}

/** The message of anything thrown (machines/ cannot import src/errors.ts). */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Whatever a step actor rejected with, as a failure. The runtime rejects with
 * a StepFailure; anything else is a bug of ours and fails the run.
 */
export function asStepFailure(error: unknown): StepFailure {
  if (
    typeof error === 'object' &&
    error !== null &&
    (error as { kind?: unknown }).kind === 'step-failure'
  )
    return error as StepFailure;
  const failure: StepFailure = {
    kind: 'step-failure',
    code: 'ERR_INTERNAL',
    message: errorText(error),
    pauses: false,
    spentUsd: 0,
    sessionCosts: {},
    halts: true,
  };
  if (error instanceof Error && error.stack) failure.detail = error.stack;
  return failure;
}
