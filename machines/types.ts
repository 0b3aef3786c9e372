/**
 * Data shared by the statecharts and the runtime. Everything here is plain
 * JSON, what the state file stores, but for the return stack, which memory
 * holds as a FrameStack and the state file as an array.
 */

import type { PendingAsk } from './decision.js';
import type { WorktreeMode, WorktreeRef } from './worktree-types.js';

export type {
  Decision,
  ForkDecisionData,
  ForkSpawn,
  GateAsk,
  PendingAsk,
  ResolvedDecision,
  ResolvedDecisionData,
  ResolvedForkSpawn,
  ResolvedWorkflowTarget,
  WorkflowTarget,
} from './decision.js';
export { MAX_WORKFLOW_DEPTH } from './decision.js';
export type { WorktreeMode, WorktreeRef, WorktreeRequest } from './worktree-types.js';
export { DEFAULT_WORKTREE_MODE, WORKTREE_MODES } from './worktree-types.js';

/**
 * How a run treats `<ask>`: `prompt` asks at the terminal while the others
 * run on, `pause` stops the run (exit 2) once every live agent waits,
 * `reject` pauses an agent that asks.
 */
export type OnAskMode = 'pause' | 'reject' | 'prompt';

/** Every `--on-ask` mode. */
export const ON_ASK_MODES: readonly OnAskMode[] = ['pause', 'reject', 'prompt'];

/** A pending ask with the agent that asked it, as reports and notifications list them. */
export interface AgentAsk extends PendingAsk {
  agent_id: string;
}

/** What a cross-workflow call saves of its caller, restored when the callee returns. */
export interface CallerScope {
  /** The caller's scope key; null for the run's own scope. */
  scope: string | null;
  cwd: string;
  /** The caller's workflow nesting depth. */
  depth: number;
}

/** A return frame pushed by `<call>`, `<function>`, `<call-workflow>` or `<function-workflow>`. */
export interface Frame {
  /** State the caller continues in when the callee returns. */
  state: string;
  /** The caller's session, resumed on return (null if the caller had none). */
  session: string | null;
  /** Present on frames of cross-workflow calls: the caller's scope, directory and depth. */
  workflow?: CallerScope;
}

/**
 * A return stack in memory: an immutable linked list, top first, whose nodes
 * are shared by an agent's records before and after a step, so that a push
 * or a pop costs the same at any depth (machines/frame-stack.ts). `null` is
 * the empty stack.
 */
export type FrameStack = FrameNode | null;

/** One frame of a FrameStack and everything below it. */
export interface FrameNode {
  readonly frame: Frame;
  readonly below: FrameStack;
  /** Frames from the bottom up to this one: 1 for the bottom frame. */
  readonly depth: number;
}

/** Lifecycle of an agent as recorded in the state file. */
export type AgentStatus = 'active' | 'terminated' | 'failed' | 'paused';

/** Everything the state file and the runtime keep of an agent but its return stack. */
export interface AgentFields {
  id: string;
  /** Current state file name, with its extension. */
  state: string;
  /** Session the next markdown turn resumes; null starts fresh. */
  session: string | null;
  /** Session the next markdown turn branches from (a `<call>` not yet started). */
  branchFrom: string | null;
  /**
   * Id reserved for the next fresh or branched Claude Code turn, written to
   * disk before that turn starts, so a run killed during the turn can resume
   * the very session it was building.
   */
  next_session?: string;
  /** Absolute working directory. */
  cwd: string;
  /** Fork attributes, kept for the worker's whole life. */
  attributes: Record<string, string>;
  /** `{{input}}` of the current state; lives for exactly one state execution. */
  input: string | null;
  status: AgentStatus;
  /** Present once the agent terminated with `<result>`. */
  result?: string;
  error?: string;
  /** For an agent paused on a usage limit: when the limit resets (epoch ms), if known. */
  resets_at?: number;
  /** The git worktree the agent works in, from `worktree="..."`. */
  worktree?: WorktreeRef;
  /** Absolute path of the agent's task folder; absent in state files written before task folders (then the default). */
  task_folder?: string;
  /** Which of the agent's own task folders that is (TaskFolderRef.number); absent means 1. */
  task_number?: number;
  /** Key of the scope the agent's states are in (src/scope/scope-set.ts); absent: the run's own. */
  scope?: string;
  /** How many cross-workflow calls and forks deep the agent is; absent means 0. */
  workflow_depth?: number;
  /** The question the agent waits on (`<ask>`); absent while it runs. */
  ask?: PendingAsk;
  /** `{{ask_id}}`: the ask whose answer is this state's `{{input}}`; lives for exactly one state, as `input` does. */
  answered_ask?: string;
  /** A forked worker's parent: the agent whose `<fork>` made it, and whose `<join>` may gather it. */
  parent?: string;
  /** The agent waits (`<join>`) at `state` until every worker it forked and has not joined yet has ended. */
  joining?: true;
  /** A worker its parent's `<join>` gathered: its result, or its failure, was handed on. */
  joined?: true;
  /** What this agent's own steps cost, in USD. */
  cost_usd?: number;
  /**
   * How many of its steps have ended (absent: none). With the run and the
   * agent, it names the step the agent runs next (`RAYMOND_STEP_KEY`): the
   * same across every re-run of that step, another for the next.
   */
  steps?: number;
  /**
   * The branch budgets the agent spends against (`<fork budget>`,
   * `--budget-per-agent`): its own, if it has one, last, after those of the
   * workers that forked it. Each branch is named by the worker that heads it.
   */
  budgets?: BranchBudget[];
}

/** A branch's budget: USD its head worker and every worker forked under it may spend together. */
export interface BranchBudget {
  branch: string;
  usd: number;
}

/** One worker as a `<join>` hands it to its parent's next state (a JSON array of these, in fork order). */
export interface JoinEntry {
  agent: string;
  attributes: Record<string, string>;
  status: 'completed' | 'failed';
  result?: string;
  error?: string;
  cost_usd: number;
  /** For a worker that worked in a git worktree: its branch and the commits on it. */
  branch?: string;
  commits?: number;
}

/** One agent in memory: a logical thread with a current state and a return stack. */
export interface AgentRecord extends AgentFields {
  stack: FrameStack;
}

/** One agent as the state file stores it: the return stack as an array, bottom frame first. */
export interface StoredAgent extends AgentFields {
  stack: Frame[];
}

/** The final status of a run, as in the state file and `--json`. */
export type RunStatus =
  'running' | 'paused' | 'completed' | 'failed' | 'budget_exceeded' | 'asking';

/** Where the run's own workflow's states come from. */
export interface ScopeRef {
  kind: 'file' | 'dir' | 'zip' | 'yaml';
  /** Absolute path the user gave (file, folder, archive or YAML workflow). */
  path: string;
  /** Entry state file name. */
  entry: string;
  /** SHA-256 of every state file when the run started, to notice edits before a resume. */
  fingerprints?: Record<string, string>;
}

/** The whole persisted state of one run. */
export interface WorkflowState {
  version: 1;
  workflow_id: string;
  status: RunStatus;
  scope: ScopeRef;
  started_at: string;
  updated_at: string;
  options: RunOptions;
  total_cost_usd: number;
  fork_counters: Record<string, number>;
  /** Last known total cost of each Claude Code session, to charge each turn only its delta. */
  session_costs: Record<string, number>;
  agents: StoredAgent[];
  results: Record<string, string>;
  error?: string;
  /** Last journal batch folded into this snapshot (see src/state/journal.ts). */
  journal_seq?: number;
  /** Each backend's account width as the run last set it (`width.changed`), for `--status`; absent: never narrowed. */
  account_widths?: Record<string, AccountWidthNow>;
}

/** Why an account's width changed (`width.changed`). */
export type WidthReason = 'rate-limited' | 'overloaded' | 'recovering' | 'usage-limit' | 'paced';

/** An account's width as a run last set it: turns at once, and why. */
export interface AccountWidthNow {
  width: number;
  was: number;
  ceiling: number;
  why: WidthReason;
  /** A usage limit: when turns start again (ISO). */
  until?: string;
  /** Requests a minute the account's gate sends, once paced; `told`: the API's headers said so. */
  perMinute?: number;
  told?: boolean;
  /** When it changed (ISO). */
  at: string;
}

/** Options a run was started with; stored so a resume can reuse them. */
export interface RunOptions {
  timeout_seconds: number;
  max_parallel: number;
  /** 0 means unlimited. */
  budget_usd: number;
  /** `--budget-hard`: turns running are stopped as the run's streamed cost reaches the budget; absent: false. */
  budget_hard?: boolean;
  model: string | null;
  /** `--fallback-models`: what a turn goes on with when its model is overloaded or unavailable; absent: none. */
  fallback_models?: string[];
  effort: string | null;
  dangerously_skip_permissions: boolean;
  /** How worktrees get their folders; absent in state files written before the pool (then `keep-ignored`). */
  worktrees?: WorktreeMode;
  /** Where agents' task folders go, relative to the project root; absent means the default layout. */
  task_folder_pattern?: string;
  /** `--name`: a label for the run, shown in the terminal title, `--list` and `--status`. */
  name?: string;
  /** `--on-ask`: kept so a `--resume` answers as the run was started (a skill's `run.sh resume` gives no mode); absent: `reject`. */
  on_ask?: OnAskMode;
  /** A server run's own environment variables (`POST /runs` `environment`), kept for its resumes. */
  environment?: Record<string, string>;
  /** `--queue`: the Redis URL its steps went through, without its password; a resume reconnects to it. */
  queue?: string;
  /** `--push-remote`: where workers push agents' worktree branches. */
  push_remote?: string;
  /** `--confirm-over`: the cost gate's amount in USD; absent: the gate is off (never set, or lifted by a "yes"). */
  confirm_over_usd?: number;
  /** `--max-agents`: most live agents a `<fork>` may bring the run to; absent: no limit. */
  max_agents?: number;
  /** `--budget-per-agent`: the budget of every forked worker that names none (`<fork budget>`); absent: none. */
  budget_per_agent_usd?: number;
}
