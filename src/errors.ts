import { asStepFailure, type StepFailure } from '../machines/step-failure.js';

/**
 * Every error Raymond reports to a user is a RaymondError with a permanent
 * `code`. Codes never change meaning, so scripts and tests can rely on them.
 */
export type ErrorCode =
  | 'ERR_USAGE'
  | 'ERR_SCOPE'
  | 'ERR_ZIP_INVALID'
  | 'ERR_YAML_PARSE'
  | 'ERR_YAML_INVALID'
  | 'ERR_CONVERT'
  | 'ERR_DOWNLOAD'
  /**
   * A server Raymond needs could not be reached, or answered "later" (a
   * refused or reset connection, a timeout, a 5xx or 429 answer): a remote
   * workflow's host, Redis. Trying again later may work: exit 75.
   */
  | 'ERR_UNREACHABLE'
  | 'ERR_ENTRY_NOT_FOUND'
  | 'ERR_ENTRY_AMBIGUOUS'
  | 'ERR_STATE_NOT_FOUND'
  | 'ERR_STATE_AMBIGUOUS'
  | 'ERR_STATE_UNSUPPORTED'
  | 'ERR_TARGET_INVALID'
  | 'ERR_TAG_PARSE'
  | 'ERR_TAG_MISSING'
  | 'ERR_TAG_MULTIPLE'
  | 'ERR_FRONTMATTER'
  | 'ERR_FILE_READ'
  | 'ERR_SCRIPT_FAILED'
  | 'ERR_SCRIPT_TIMEOUT'
  | 'ERR_SCRIPT_START'
  | 'ERR_STATE_FILE'
  | 'ERR_WORKFLOW_ID'
  | 'ERR_CD'
  | 'ERR_STACK_DEPTH'
  | 'ERR_WORKFLOW_SPEC'
  | 'ERR_ASK_REJECTED'
  | 'ERR_ASK_EXPIRED'
  | 'ERR_ASK_ANSWER'
  | 'ERR_WORKFLOW_DEPTH'
  | 'ERR_POLICY'
  | 'ERR_MODEL'
  /** A state's grant (tools, MCP servers, system prompt, directories) cannot be given: a file is missing or bad, a backend cannot honour a key. */
  | 'ERR_GRANT'
  /** A turn called a tool its grant denied, in a state with `on_denial: fail`. */
  | 'ERR_PERMISSION_DENIED'
  | 'ERR_CLAUDE_NOT_FOUND'
  /** The agent CLI a workflow's backend names (pi) is missing or broken. */
  | 'ERR_BACKEND_NOT_FOUND'
  | 'ERR_CLAUDE_FAILED'
  | 'ERR_CLAUDE_REFUSED'
  | 'ERR_USAGE_LIMIT'
  | 'ERR_CONFIG'
  | 'ERR_LOCKED'
  | 'ERR_WORKFLOW_CHANGED'
  | 'ERR_WORKTREE'
  | 'ERR_WORKER_ID'
  | 'ERR_TASK_FOLDER'
  | 'ERR_INSPECT'
  /** A request `raymond serve` refused; the HTTP status and a stable reason are in `details`. */
  | 'ERR_HTTP'
  /** The step queue (`--queue`): Redis unreachable at start, or a job a worker refused. */
  | 'ERR_QUEUE'
  /** No usable shared secret for the step queue. */
  | 'ERR_QUEUE_SECRET'
  /** A worker refused a job: its signature or its files did not check out. */
  | 'ERR_QUEUE_REFUSED'
  | 'ERR_INTERNAL';

/**
 * Exit-code class of an error: a user mistake found before running, a
 * failure that may pass by itself (the network), or a failed run.
 */
export type ErrorKind = 'invalid' | 'transient' | 'failed';

const INVALID_CODES = new Set<ErrorCode>([
  'ERR_USAGE',
  'ERR_SCOPE',
  'ERR_ZIP_INVALID',
  'ERR_YAML_PARSE',
  'ERR_YAML_INVALID',
  'ERR_CONVERT',
  'ERR_DOWNLOAD',
  'ERR_ENTRY_NOT_FOUND',
  'ERR_ENTRY_AMBIGUOUS',
  'ERR_WORKFLOW_ID',
  'ERR_STATE_FILE',
  'ERR_CONFIG',
  'ERR_LOCKED',
  'ERR_WORKFLOW_CHANGED',
  'ERR_CLAUDE_NOT_FOUND',
  'ERR_BACKEND_NOT_FOUND',
  'ERR_FILE_READ',
  'ERR_INSPECT',
  'ERR_ASK_ANSWER',
  'ERR_ASK_REJECTED',
  'ERR_QUEUE_SECRET',
  'ERR_GRANT',
]);

/** Errors after which the agent is paused (resumable) rather than the run failed. */
const PAUSE_CODES = new Set<ErrorCode>(['ERR_CLAUDE_FAILED', 'ERR_USAGE_LIMIT', 'ERR_ASK_REJECTED']);

/** JSON-safe shape of a RaymondError, used across worker threads and in state files. */
export interface SerializedError {
  code: ErrorCode;
  message: string;
  file?: string;
  details?: Record<string, unknown>;
}

/** What a failed step had already cost, carried in `details` so it is still charged. */
export interface SpentDetails {
  spentUsd?: number;
  sessionCosts?: Record<string, number>;
  /** A usage limit's reset time (epoch ms), or null when unknown. */
  resetsAt?: number | null;
}

/**
 * Base class of all user-facing errors: a permanent `code`, the raw
 * `message` (one line) and the `file` it is about. The `file: ` prefix is
 * added where the error is shown (formatError), never stored in `message`.
 */
export class RaymondError extends Error {
  readonly code: ErrorCode;
  readonly file: string | undefined;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: { file?: string; details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'RaymondError';
    this.code = code;
    this.file = options.file;
    this.details = options.details ?? {};
  }

  get kind(): ErrorKind {
    if (this.code === 'ERR_UNREACHABLE') return 'transient';
    return INVALID_CODES.has(this.code) ? 'invalid' : 'failed';
  }

  toJSON(): SerializedError {
    const out: SerializedError = { code: this.code, message: this.message };
    if (this.file !== undefined) out.file = this.file;
    if (Object.keys(this.details).length > 0) out.details = this.details;
    return out;
  }

  /** Rebuilds an error that crossed a thread boundary or was read from disk. */
  static fromJSON(data: SerializedError): RaymondError {
    return new RaymondError(data.code, data.message, { file: data.file, details: data.details });
  }
}

/** The message of anything thrown: an Error's message, anything else as text. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** How an error is shown: `file: message` for a RaymondError about a file, else its message. */
export function formatError(err: unknown): string {
  return err instanceof RaymondError && err.file ? `${err.file}: ${err.message}` : errorMessage(err);
}

/** What a full disk's error message ends with, so that every write Raymond makes says it the same way. */
export const DISK_FULL_HINT = '; make room, then resume';

/**
 * A failed step as the supervisor reads it. This is the one place that
 * decides whether a failure pauses its agent (Claude Code kept failing, or a
 * usage limit) or fails the run.
 */
export function toStepFailure(err: unknown): StepFailure {
  if (!(err instanceof RaymondError)) return asStepFailure(err);
  const spent = err.details as SpentDetails;
  const failure: StepFailure = {
    kind: 'step-failure',
    code: err.code,
    message: err.message,
    file: err.file,
    pauses: PAUSE_CODES.has(err.code),
    spentUsd: spent.spentUsd ?? 0,
    sessionCosts: spent.sessionCosts ?? {},
  };
  if (typeof spent.resetsAt === 'number') failure.resetsAt = spent.resetsAt;
  // Not the agent's own doing: every other agent would meet it too.
  if (err.code === 'ERR_INTERNAL' || err.message.endsWith(DISK_FULL_HINT)) failure.halts = true;
  return failure;
}

/** Result type for work done off the main thread: errors travel as data. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: SerializedError };
