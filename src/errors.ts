import { asStepFailure, type StepFailure } from '../machines/step-failure.js';

/**
 * Every error Raymond reports to a user is a RaymondError with a permanent
 * `code`. Codes never change meaning, so scripts and tests can rely on them.
 */
export type ErrorCode =
  /** A command line Raymond cannot follow: an unknown option or command, options that cannot be combined, a missing argument. */
  | 'ERR_USAGE'
  /** The workflow given is not one: no such file or folder, or not a state file, folder, .zip or .yaml. */
  | 'ERR_SCOPE'
  /** A .zip workflow that cannot be used: damaged, not matching the hash in its name, or with entries escaping its folder. */
  | 'ERR_ZIP_INVALID'
  /** A YAML workflow or workflow.yaml that is not valid YAML. */
  | 'ERR_YAML_PARSE'
  /** A YAML workflow or workflow.yaml of the wrong shape (an unknown key, a value of the wrong type). */
  | 'ERR_YAML_INVALID'
  /** `raymond convert` cannot write the workflow in the other form. */
  | 'ERR_CONVERT'
  /** A remote workflow's server answered, but not with the workflow (a 404, a bad address, too large). */
  | 'ERR_DOWNLOAD'
  /**
   * A server Raymond needs could not be reached, or answered "later" (a
   * refused or reset connection, a timeout, a 5xx or 429 answer): a remote
   * workflow's host, Redis. Trying again later may work: exit 75.
   */
  | 'ERR_UNREACHABLE'
  /** A workflow folder with no entry state (`START` or `1_START`). */
  | 'ERR_ENTRY_NOT_FOUND'
  /** A workflow folder with more than one entry state (`START.md` and `START.sh`, say). */
  | 'ERR_ENTRY_AMBIGUOUS'
  /** A tag names a state the workflow does not have. */
  | 'ERR_STATE_NOT_FOUND'
  /** A tag names a state by its stem and several files have it (`NEXT.md` and `NEXT.sh`). */
  | 'ERR_STATE_AMBIGUOUS'
  /** A state of a kind the run cannot execute here (a markdown state without an agent backend). */
  | 'ERR_STATE_UNSUPPORTED'
  /** A tag's target or return state is empty or not a plain state name. */
  | 'ERR_TARGET_INVALID'
  /** An output with a malformed transition tag (an attribute without its closing quote, one given twice). */
  | 'ERR_TAG_PARSE'
  /** An output with no transition tag. */
  | 'ERR_TAG_MISSING'
  /** An output with more than one transition tag (several fork tags with one join are one transition). */
  | 'ERR_TAG_MULTIPLE'
  /** A markdown state's frontmatter that is not valid YAML or has a bad key or value. */
  | 'ERR_FRONTMATTER'
  /** A file Raymond must read (a state, a config, an input file) that cannot be read. */
  | 'ERR_FILE_READ'
  /** A script state that exited with a non-zero code. */
  | 'ERR_SCRIPT_FAILED'
  /** A step (script or agent turn) that printed nothing for `--timeout` seconds and was killed. */
  | 'ERR_SCRIPT_TIMEOUT'
  /** A script state that could not be started (no interpreter, not executable). */
  | 'ERR_SCRIPT_START'
  /** A run's state file that is missing, damaged or edited into something Raymond will not run. */
  | 'ERR_STATE_FILE'
  /** A `--workflow-id` that is not letters, digits, `-` and `_`, or that an existing run has. */
  | 'ERR_WORKFLOW_ID'
  /** A `cd` attribute naming no folder, or one outside what the agent may reach. */
  | 'ERR_CD'
  /** A `<call>` or `<function>` that would make the return stack deeper than its limit (a recursion that never ends?). */
  | 'ERR_STACK_DEPTH'
  /** A cross-workflow tag naming a workflow that cannot be opened from here. */
  | 'ERR_WORKFLOW_SPEC'
  /** An `<ask>` in a run that cannot ask (`--on-ask reject`): the agent is paused. */
  | 'ERR_ASK_REJECTED'
  /** An `<ask>` whose timeout passed with no `timeout_next` state to go on at. */
  | 'ERR_ASK_EXPIRED'
  /** An `--answer` for an ask the run does not have pending, or given twice. */
  | 'ERR_ASK_ANSWER'
  /** Cross-workflow calls nested deeper than their limit (two workflows calling each other?). */
  | 'ERR_WORKFLOW_DEPTH'
  /** An output whose tag the state's `allowed_transitions` does not allow. */
  | 'ERR_POLICY'
  /** A model name the state's backend cannot use. */
  | 'ERR_MODEL'
  /** A state's grant (tools, MCP servers, system prompt, directories) cannot be given: a file is missing or bad, a backend cannot honour a key. */
  | 'ERR_GRANT'
  /** A turn called a tool its grant denied, in a state with `on_denial: fail`. */
  | 'ERR_PERMISSION_DENIED'
  /** The Claude Code executable is not on `PATH` (or where `--claude-bin` says). */
  | 'ERR_CLAUDE_NOT_FOUND'
  /** The agent CLI a workflow's backend names (pi) is missing or broken. */
  | 'ERR_BACKEND_NOT_FOUND'
  /** An agent turn (any backend's) that failed after its retries (a crash, an API error): the agent is paused, resumable. Formerly ERR_CLAUDE_FAILED. */
  | 'ERR_AGENT_FAILED'
  /** An agent turn (any backend's) that can never succeed as asked (not logged in, an unknown model, a refused flag): stopped after one try. Formerly ERR_CLAUDE_REFUSED. */
  | 'ERR_AGENT_REFUSED'
  /** Claude Code hit its usage limit: the agent waits for the reset, or is paused with `--no-wait`. */
  | 'ERR_USAGE_LIMIT'
  /** A forked worker's branch budget (`<fork budget>`, `--budget-per-agent`), or a state's `budget:` for one visit, is spent: the agent fails (a worker alone, and the run goes on). */
  | 'ERR_BRANCH_BUDGET'
  /**
   * `--budget-hard`: a turn stopped as the run's streamed cost reached `--budget`. Its agent is paused
   * with its session kept, and the run ends `budget_exceeded` (exit 3): `--resume ID --budget MORE` goes on.
   */
  | 'ERR_BUDGET'
  /** A `.raymond/config.toml` that is not valid TOML or has a bad value. */
  | 'ERR_CONFIG'
  /** A run that another live Raymond process holds (its lock file). */
  | 'ERR_LOCKED'
  /** A `--resume` of a run whose state files changed since it started (give `--allow-changes` to accept them). */
  | 'ERR_WORKFLOW_CHANGED'
  /** A git worktree that could not be made, switched or released. */
  | 'ERR_WORKTREE'
  /** A task folder that could not be made. */
  | 'ERR_TASK_FOLDER'
  /** `--inspect` or `--trace` cannot start: the port is in use, the trace file cannot be written. */
  | 'ERR_INSPECT'
  /** A request `raymond serve` refused; the HTTP status and a stable reason are in `details`. */
  | 'ERR_HTTP'
  /** The step queue (`--queue`): Redis unreachable at start, or a job a worker refused. */
  | 'ERR_QUEUE'
  /** No usable shared secret for the step queue. */
  | 'ERR_QUEUE_SECRET'
  /** A worker refused a job: its signature or its files did not check out. */
  | 'ERR_QUEUE_REFUSED'
  /** A workflow test file (`tests/*.test.yaml`) that cannot be used: not YAML, a key of the wrong shape, a workflow that is not there. */
  | 'ERR_TEST_FILE'
  /** `raymond test`: at least one workflow test failed. */
  | 'ERR_TEST_FAILED'
  /** `raymond record`: the run cannot be turned into a test (no debug logs, a step whose stream is missing). */
  | 'ERR_RECORD'
  /** `raymond stats` / `raymond history`: no workflow or run by that name in the history, or a bad `--prune` bound. */
  | 'ERR_HISTORY'
  /** A bug in Raymond: the message and, with `--verbose`, the stack say where. */
  | 'ERR_INTERNAL';

/**
 * Codes renamed, by their old names: an old name read back (a serialized
 * error from an older Raymond) is its new code, and a script's JSON shows
 * the old name beside the new one (`aliases`), so a script that matches it
 * keeps working.
 */
export const ERROR_CODE_ALIASES: Readonly<Record<string, ErrorCode>> = {
  ERR_CLAUDE_FAILED: 'ERR_AGENT_FAILED',
  ERR_CLAUDE_REFUSED: 'ERR_AGENT_REFUSED',
};

/** The code a name stands for: an alias's new code, else the name itself. */
export function currentCode(name: string): ErrorCode {
  return ERROR_CODE_ALIASES[name] ?? (name as ErrorCode);
}

/** The old names of a code, for JSON a script reads: empty for most. */
export function aliasesOf(code: string): string[] {
  return Object.keys(ERROR_CODE_ALIASES).filter((old) => ERROR_CODE_ALIASES[old] === code);
}

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
  'ERR_TEST_FILE',
  'ERR_RECORD',
  'ERR_HISTORY',
]);

/** Errors after which the agent is paused (resumable) rather than the run failed. */
const PAUSE_CODES = new Set<ErrorCode>([
  'ERR_AGENT_FAILED',
  'ERR_USAGE_LIMIT',
  'ERR_ASK_REJECTED',
  'ERR_BUDGET',
]);

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

  constructor(
    code: ErrorCode,
    message: string,
    options: { file?: string; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
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
    return new RaymondError(currentCode(data.code), data.message, {
      file: data.file,
      details: data.details,
    });
  }
}

/** The message of anything thrown: an Error's message, anything else as text. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** How an error is shown: `file: message` for a RaymondError about a file, else its message. */
export function formatError(err: unknown): string {
  return err instanceof RaymondError && err.file
    ? `${err.file}: ${err.message}`
    : errorMessage(err);
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
  if (err.code === 'ERR_BUDGET') {
    failure.budget = true;
    if (typeof err.details.session === 'string') failure.session = err.details.session;
  }
  // Not the agent's own doing: every other agent would meet it too.
  if (err.code === 'ERR_INTERNAL' || err.message.endsWith(DISK_FULL_HINT)) failure.halts = true;
  return failure;
}

/** Result type for work done off the main thread: errors travel as data. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: SerializedError };
