import type { WorktreeRef, WorktreeRequest } from './worktree-types.js';

/*
 * What a state decided, twice: as its output was parsed (Decision), and as
 * the step resolved it (ResolvedDecision): states named, directories and
 * callees found, workers named, asks given their ids and times, worktrees
 * planned and settled. Only the resolved form is applied to an agent.
 */

/** A task folder a step gave an agent: its absolute path and which of the agent's own folders it is. */
interface TaskFolderRef {
  path: string;
  /** 1 for the agent's first own folder, 2 after its first `task="new"`...; 0 for a folder shared with its parent. */
  number: number;
}

/** The callee of a cross-workflow tag: the specifier as written (ResolvedWorkflowTarget adds the scope it opened). */
export interface WorkflowTarget {
  spec: string;
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
  /** Set when the question is the cost gate's (`--confirm-over`), not a state's `<ask>` (machines/gate.ts). */
  gate?: GateAsk;
}

/**
 * What the cost gate stopped at: a state about to run (`state`), or the
 * `<fork>` a step decided (`fork`), whose resolved decision is kept here so
 * that an answer applies it without running the step again.
 */
export interface GateAsk {
  kind: 'state' | 'fork';
  /** The state, as shown to the user. */
  where: string;
  /** The p90 forecast that passed the amount: of the step, or of all the fork's workers together. */
  forecast_usd: number;
  /** What the run had spent when it asked. */
  spent_usd: number;
  /** The amount it passed (`--confirm-over`). */
  amount_usd: number;
  /** `fork`: how many workers, the decision to apply, and the session ids it reserved (the agent's, then one per worker; null for a worker whose first state is a script). */
  workers?: number;
  decision?: ForkDecisionData;
  fresh?: (string | null)[];
}

/** What one state execution asked for, as its output was parsed and checked: names as written, nothing looked up yet. */
export type Decision =
  | { kind: 'goto'; target: string; input?: string }
  | {
      kind: 'reset';
      target: string;
      input?: string;
      cd?: string;
      worktree?: WorktreeRequest;
      /** `task="new"`: the agent moves to a fresh task folder. */
      newTask?: boolean;
      /** `<reset-workflow>`: the agent moves into another workflow, its stack cleared. */
      workflow?: WorkflowTarget;
    }
  | {
      kind: 'call' | 'function';
      target: string;
      returnTo: string;
      input?: string;
      /** `<call-workflow>`/`<function-workflow>`: the callee runs in another workflow's scope. */
      workflow?: WorkflowTarget;
      /** `cd` of a `<function-workflow>`: the callee's working directory. */
      cd?: string;
    }
  /**
   * `<fork>` tags, with the parent's continuation `next`. With `join` (a
   * `<join>NEXT</join>`, alone or beside the forks) the parent waits at
   * `next` until every worker it forked and has not joined yet has ended;
   * `next` then runs with their results as its input.
   */
  | { kind: 'fork'; next: string; nextInput?: string; workers: ForkSpawn[]; join?: true }
  | { kind: 'result'; payload: string }
  /**
   * `<ask next="N" timeout="24h" timeout_next="L">question</ask>`: the agent
   * waits for an answer; `timeoutMs` is the duration as read from `timeout`.
   */
  | {
      kind: 'ask';
      next: string;
      prompt: string;
      timeoutMs?: number;
      timeoutNext?: string;
      files?: Record<string, string>;
    };

/** One worker requested by a `<fork>`, as parsed. */
export interface ForkSpawn {
  target: string;
  attributes: Record<string, string>;
  cd?: string;
  input?: string;
  worktree?: WorktreeRequest;
  /** `task="inherit"`: the worker shares its parent's task folder instead of getting its own. */
  inheritTask?: boolean;
  /** `<fork-workflow>`: the worker runs another workflow. */
  workflow?: WorkflowTarget;
  /** `budget="0.50"`: USD the worker and every worker it forks in turn may spend together. */
  budget?: number;
}

/** A cross-workflow tag's callee once its scope was opened (src/scope/scope-set.ts). */
export interface ResolvedWorkflowTarget extends WorkflowTarget {
  /** Key of the callee's scope; null when it is the run's own scope. */
  scope: string | null;
  /** Short name of the callee's scope, for worker ids. */
  name: string;
}

/** A forked worker once resolved: named, its state found, its task folder (and worktree, if it asked for one) given. */
export interface ResolvedForkSpawn extends Omit<ForkSpawn, 'workflow'> {
  /** The worker's agent id (machines/worker-names.ts). */
  id: string;
  taskFolder: TaskFolderRef;
  /** The worktree planned for the worker (its path is the worker's cwd once it runs). */
  created?: WorktreeRef;
  workflow?: ResolvedWorkflowTarget;
}

/**
 * The mark of a resolved decision. It exists only in the types: a parsed
 * Decision lacks it, so the compiler refuses one where a ResolvedDecision
 * is required; the step makes one (src/runtime/resolve-decision.ts).
 */
declare const resolved: unique symbol;

/** What marks a decision as resolved, for the one place that makes them. */
interface ResolvedMark {
  readonly [resolved]: true;
}

type Variant<K extends Decision['kind']> = Extract<Decision, { kind: K }>;

/**
 * What a resolved decision holds: every state name resolved in its scope,
 * `cd` made absolute, callees opened, workers named with their task
 * folders, an ask given its id and times, worktrees planned, and the
 * worktree of an agent that waits (`<join>`) or ends settled. The run's
 * events report this data (machines/run-events.ts).
 */
export type ResolvedDecisionData =
  | Variant<'goto'>
  | (Omit<Variant<'reset'>, 'workflow'> & {
      /** The worktree planned for the agent, when it asked for one and had none. */
      created?: WorktreeRef;
      /** `task="new"`: the fresh task folder. */
      taskFolder?: TaskFolderRef;
      workflow?: ResolvedWorkflowTarget;
    })
  | (Omit<Variant<'call' | 'function'>, 'workflow'> & { workflow?: ResolvedWorkflowTarget })
  /** `worktree`: a joining agent's worktree once its folder went back to the pool for the wait. */
  | (Omit<Variant<'fork'>, 'workers'> & { workers: ResolvedForkSpawn[]; worktree?: WorktreeRef })
  /** `worktree`: the agent's worktree as it was left, when the agent terminates. */
  | (Variant<'result'> & { worktree?: WorktreeRef })
  /** `ask`: the pending ask, with its id and times. */
  | (Variant<'ask'> & { ask: PendingAsk });

/** A resolved `<fork>`, as the cost gate keeps it until an answer applies it. */
export type ForkDecisionData = Extract<ResolvedDecisionData, { kind: 'fork' }>;

/** A decision the step resolved (src/runtime/resolve-decision.ts), the only kind applied to an agent (machines/apply-decision.ts). */
export type ResolvedDecision = ResolvedMark & ResolvedDecisionData;
