import type { AgentFields } from '../../machines/types.js';
import type { StepDebug } from '../state/debug-log.js';
import type { ResolvedGrant } from './resolved-grant.js';

/**
 * The agent CLI a workflow's markdown states run on, as its manifest names
 * it (`backend: pi`), with its options as that backend checked them.
 */
export interface BackendSpec {
  name: string;
  options?: Readonly<Record<string, unknown>>;
}

/** What an executor needs of where the state files are: their names as shown, and a script's path. */
export interface StateFiles {
  display(file: string): string;
  scriptPath(file: string): Promise<string>;
}

/** How the next Claude Code turn relates to earlier ones. */
export type SessionPlan =
  /** `id`: the session id reserved for this turn (`--session-id`). */
  | { kind: 'fresh'; id?: string }
  | { kind: 'resume'; session: string }
  /** `<call>`: branch from the caller's session; the caller's own session is left as it was. */
  | { kind: 'branch'; from: string; id?: string }
  /** `--continue-session`: branch from the newest Claude Code session of the directory (`-c --fork-session`), the user's. */
  | { kind: 'continue'; id?: string };

/** The session a plan continues from, whose earlier cost is already paid. */
export function parentSession(plan: SessionPlan): string | undefined {
  return plan.kind === 'resume' ? plan.session : plan.kind === 'branch' ? plan.from : undefined;
}

/**
 * What an agent's `branchFrom` holds to branch its first markdown turn from
 * the user's newest session in its directory (`--continue-session`); a
 * session id never looks like this.
 */
export const CONTINUE_LATEST = '@latest';

/** Everything an executor needs to run one state for one agent. */
export interface ExecutionRequest {
  workflowId: string;
  agent: AgentFields;
  /** The state file to run (resolved, with extension). */
  file: string;
  /** Where the state file is: executors only name it and find its script (a worker's copy, for a queued step). */
  scope: StateFiles;
  /** The agent CLI the state's workflow runs on (markdown states); absent: Claude Code. */
  backend?: BackendSpec;
  /** Rendered prompt, for markdown states. */
  prompt?: string;
  /** Markdown states: which session the turn starts from, and its last known total cost. */
  session?: SessionPlan;
  costBase?: number;
  model?: string;
  /**
   * The models the turn goes on with, in order, when `model` is overloaded
   * or unavailable: a backend whose CLI does that itself is given them
   * (Claude Code's `--fallback-model`); the others' turns fail, and the
   * markdown step runs the turn again with the next (markdown-turns.ts).
   */
  fallbackModels?: readonly string[];
  effort?: string;
  /** The state's grant (tools, MCP servers, system prompt, directories); absent: the run's. */
  grant?: ResolvedGrant;
  signal: AbortSignal;
  /** Inactivity timeout in milliseconds. */
  timeoutMs: number;
  /** Where `timeoutMs` came from, for the message when it kills the step: the state's own `timeout`, else `--timeout`. */
  timeoutFromState?: boolean;
  /** Variables for this invocation's process alone (the trace context: TRACEPARENT, OTEL_RESOURCE_ATTRIBUTES), over the run's. */
  env?: Readonly<Record<string, string>>;
  /**
   * Told each time the backend's API refuses a request of this turn for the
   * account's rate (429) or its load (529), with the wait before the retry
   * when known: the run's account width is set from it.
   */
  onLimited?: (status: 429 | 529, delayMs: number | null) => void;
  /**
   * Told what the turn has cost so far each time that grows, as its stream
   * says (a message's usage priced, or the CLI's own figure): `--budget-hard`
   * stops a turn whose run would pass its budget. A backend whose stream
   * says nothing before the turn ends never calls it.
   */
  onSpend?: (costUsd: number) => void;
  /** Opens the debug files of this execution (absent with --no-debug). */
  debug?: () => StepDebug;
  /** The workflow uses task folders: a queue worker makes the agent's before it runs the step. */
  makeTaskFolder?: boolean;
}

/** What a state printed, and what running it cost. */
export interface Execution {
  /** Text to read transition tags from: a script's stdout, or Claude's final message. */
  output: string;
  /** Session the step ran in (markdown states); null for scripts. */
  session: string | null;
  /** What this execution alone cost. */
  costUsd: number;
  /** The session's total as the tool reports it, for the next delta. */
  sessionTotal?: number;
  /** Bytes at the start of the output that a cap left out: `output` is its tail. */
  droppedBytes?: number;
  /** Tool calls the turn's permissions refused, shown as `Bash(git commit ...)`. */
  denials?: string[];
  /** Tokens of this execution alone (input, output and cache), as the agent CLI reported them. */
  tokens?: number;
  /** CPU time of its process and that process's children, as last sampled (ms). */
  cpuMs?: number;
  /** The models that answered the turn, as its CLI reported them (a fallback's too); absent: not reported. */
  models?: string[];
}

/**
 * Runs one kind of state. The script executor is the first implementation;
 * the Claude Code executor runs markdown states.
 */
export interface StateExecutor {
  execute(request: ExecutionRequest): Promise<Execution>;
  /** The session will not be continued (its agent ended, reset, or returned from a call): what is kept for it can go. */
  endSession?(session: string): void;
  /** The run (or a worker's part of it) ended: what the executor kept between turns (live processes) goes. */
  close?(): void;
}

/** Which timeout killed a step, as its message names it. */
export function timeoutName(req: Pick<ExecutionRequest, 'timeoutFromState'>): string {
  return req.timeoutFromState ? "the state's timeout" : '--timeout';
}
