/**
 * Data shared by the statecharts and the runtime. Everything here is plain
 * JSON, what the state file stores, but for the return stack, which memory
 * holds as a FrameStack and the state file as an array.
 */

/** `worktree="NAME"` (and `base="REV"`, `sparse="DIR ..."`) on a `<fork>` or `<reset>`. */
export interface WorktreeRequest {
  name: string;
  base?: string | undefined;
  /** Folders of a cone-mode sparse checkout; absent checks out everything. */
  sparse?: string[] | undefined;
}

/**
 * How agents get their worktree folders: from a pool sized to concurrency,
 * keeping ignored files warm between agents (`keep-ignored`) or removing them
 * (`clean`), or one folder per agent kept until it ends (`off`).
 */
export type WorktreeMode = 'keep-ignored' | 'clean' | 'off';

/**
 * How a run treats `<ask>`: `prompt` asks at the terminal while the others
 * run on, `pause` stops the run (exit 2) once every live agent waits,
 * `reject` pauses an agent that asks.
 */
export type OnAskMode = 'pause' | 'reject' | 'prompt';

/** Every `--on-ask` mode. */
export const ON_ASK_MODES: readonly OnAskMode[] = ['pause', 'reject', 'prompt'];

/** Every `--worktrees` mode. */
export const WORKTREE_MODES: readonly WorktreeMode[] = ['keep-ignored', 'clean', 'off'];

/** Folders from a pool sized to concurrency, ignored files kept warm. */
export const DEFAULT_WORKTREE_MODE: WorktreeMode = 'keep-ignored';

/** A git worktree an agent works in: its own branch, checked out in a folder while the agent lives. */
export interface WorktreeRef {
  /** The `worktree="..."` name the workflow gave. */
  name: string;
  repo: string;
  /** Where the branch is checked out for the agent; absent until the agent first runs. */
  path?: string;
  branch: string;
  /** Commit the branch started from. */
  base: string;
  sparse?: string[];
  /** Absent in state files written before the pool: one folder per agent, as `off`. */
  mode?: WorktreeMode;
  /** Filled in when the agent terminated. */
  commits?: number;
  diffstat?: string;
  dirty?: boolean;
  /** The branch had no changes and was deleted (and, with `off`, its folder removed). */
  removed?: boolean;
  /** Sha of the commit that saved what the agent left uncommitted, on its branch. */
  saved?: string;
  /** The remote its branch was pushed to, by the worker that ran the agent (`--queue`). */
  pushed?: string;
}

/** A task folder a step gave an agent: its absolute path and which of the agent's own folders it is. */
export interface TaskFolderRef {
  path: string;
  /** 1 for the agent's first own folder, 2 after its first `task="new"`...; 0 for a folder shared with its parent. */
  number: number;
}

/**
 * The callee of a cross-workflow tag: the specifier as written and, once
 * resolved, the scope it opened (src/scope/scope-set.ts).
 */
export interface WorkflowTarget {
  spec: string;
  /** Key of the callee's scope; null when it is the run's own scope. Set when resolved. */
  scope?: string | null | undefined;
  /** Short name of the callee's scope, for worker ids. Set when resolved. */
  name?: string | undefined;
}

/** The deepest a composition of workflows may nest (`<call-workflow>`, `<function-workflow>`, `<fork-workflow>`). */
export const MAX_WORKFLOW_DEPTH = 4;

/**
 * A question an agent asked with `<ask>`, waiting for an answer. It is in
 * the state file (on its agent) from the step that made it until the answer
 * is applied, so a crash loses no ask and an answer is applied once.
 */
export interface PendingAsk {
  /** `ask_<agent id>_<epoch ms>`: unique in the run. */
  id: string;
  /** The question: the text between the tags. */
  prompt: string;
  /** ISO 8601 times: when it was asked, and when it stops waiting (absent: never). */
  created_at: string;
  timeout_at?: string;
  /** The state the answer goes to (as its `{{input}}`), and the one a timeout goes to (absent: the agent fails). */
  next: string;
  timeout_next?: string;
  /** The file attributes of the tag (`upload_slots`, `display_files`...), for whoever answers it. */
  files?: Record<string, string>;
}

/** A pending ask with the agent that asked it, as reports and notifications list them. */
export interface AgentAsk extends PendingAsk {
  agent_id: string;
}

/** What one state execution asked for, after parsing and validation. */
export type Decision =
  | { kind: 'goto'; target: string; input?: string | undefined }
  | {
      kind: 'reset';
      target: string;
      input?: string | undefined;
      cd?: string | undefined;
      worktree?: WorktreeRequest | undefined;
      created?: WorktreeRef | undefined;
      /** `task="new"`: the agent moves to a fresh task folder, `taskFolder` once resolved. */
      newTask?: boolean | undefined;
      taskFolder?: TaskFolderRef | undefined;
      /** `<reset-workflow>`: the agent moves into another workflow, its stack cleared. */
      workflow?: WorkflowTarget | undefined;
    }
  | {
      kind: 'call' | 'function';
      target: string;
      returnTo: string;
      input?: string | undefined;
      /** `<call-workflow>`/`<function-workflow>`: the callee runs in another workflow's scope. */
      workflow?: WorkflowTarget | undefined;
      /** `cd` of a `<function-workflow>`: the callee's working directory. */
      cd?: string | undefined;
    }
  /**
   * `<fork>` tags, with the parent's continuation `next`. With `join` (a
   * `<join>NEXT</join>`, alone or beside the forks) the parent waits at
   * `next` until every worker it forked and has not joined yet has ended;
   * `next` then runs with their results as its input. `worktree`: a joining
   * agent's worktree once its folder went back to the pool for the wait.
   */
  | { kind: 'fork'; next: string; nextInput?: string | undefined; workers: ForkSpawn[]; join?: true | undefined; worktree?: WorktreeRef | undefined }
  /** `worktree`: the agent's worktree as it was left, when the agent terminates. */
  | { kind: 'result'; payload: string; worktree?: WorktreeRef | undefined }
  /**
   * `<ask next="N" timeout="24h" timeout_next="L">question</ask>`: the agent
   * waits for an answer. `ask` is filled in when the step resolves it (its id
   * and times); `timeoutMs` is the duration as read from `timeout`.
   */
  | { kind: 'ask'; next: string; prompt: string; timeoutMs?: number | undefined; timeoutNext?: string | undefined; files?: Record<string, string>; ask?: PendingAsk | undefined };

/** One worker requested by a `<fork>`. */
export interface ForkSpawn {
  /** The worker's agent id, given when the step resolves its decision (machines/worker-names.ts). */
  id?: string | undefined;
  target: string;
  attributes: Record<string, string>;
  cd?: string | undefined;
  input?: string | undefined;
  worktree?: WorktreeRequest | undefined;
  /** The worktree made for the worker, once resolved (its path is the worker's cwd). */
  created?: WorktreeRef | undefined;
  /** `task="inherit"`: the worker shares its parent's task folder instead of getting its own. */
  inheritTask?: boolean | undefined;
  /** The worker's task folder, once resolved. */
  taskFolder?: TaskFolderRef | undefined;
  /** `<fork-workflow>`: the worker runs another workflow. */
  workflow?: WorkflowTarget | undefined;
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
export type RunStatus = 'running' | 'paused' | 'completed' | 'failed' | 'budget_exceeded' | 'asking';

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
}

/** Options a run was started with; stored so a resume can reuse them. */
export interface RunOptions {
  timeout_seconds: number;
  max_parallel: number;
  /** 0 means unlimited. */
  budget_usd: number;
  model: string | null;
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
}
