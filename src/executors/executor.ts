import type { AgentRecord } from '../../machines/types.js';
import type { Scope } from '../scope/scope.js';

/** Everything an executor needs to run one state for one agent. */
export interface ExecutionRequest {
  workflowId: string;
  agent: AgentRecord;
  /** The state file to run (resolved, with extension). */
  file: string;
  scope: Scope;
  /** Rendered prompt, for markdown states. */
  prompt?: string;
  signal: AbortSignal;
  /** Inactivity timeout in milliseconds. */
  timeoutMs: number;
}

/** What a state printed, and what running it cost. */
export interface Execution {
  /** Text to read transition tags from: a script's stdout, or Claude's final message. */
  output: string;
  /** Session the step ran in (markdown states); null for scripts. */
  session: string | null;
  costUsd: number;
}

/**
 * Runs one kind of state. The script executor is the first implementation;
 * the Claude Code executor runs markdown states.
 */
export interface StateExecutor {
  execute(request: ExecutionRequest): Promise<Execution>;
}
