import { pushFrame } from './frame-stack.js';
import type {
  AgentRecord,
  Decision,
  Frame,
  ResolvedDecision,
  ResolvedForkSpawn,
  ResolvedWorkflowTarget,
  WorktreeRef,
} from './types.js';
import { exhaustive } from './exhaustive.js';

/** What the agent's own machine does after a step. */
export type StepOutcome =
  /** Still the same frame: run `record.state` next. */
  | 'continue'
  /** A frame was pushed: wait for the callee. */
  | 'call'
  /** The top frame was popped: hand control back to the caller's frame. */
  | 'return'
  /** `<result>` with an empty stack: the agent is done. */
  | 'terminate'
  /** `<ask>`: the frame waits for an answer before it goes on. */
  | 'ask'
  /** `<join>`: the frame waits for the agent's unjoined workers to end before it goes on. */
  | 'join';

/** A worker to create; the supervisor gives it a record. */
export interface SpawnRequest extends Omit<
  ResolvedForkSpawn,
  'cd' | 'worktree' | 'created' | 'inheritTask' | 'workflow'
> {
  /** The worker's scope key (absent: the run's own) and workflow nesting depth (absent: 0). */
  scope?: string;
  depth?: number;
  worktree?: WorktreeRef;
  /** Absolute working directory of the worker. */
  cwd: string;
  /** Id reserved for the worker's first Claude Code turn. */
  nextSession?: string;
  /** The agent that forked it. */
  parent: string;
}

/** The effect of one completed step on its agent. */
export interface Applied {
  record: AgentRecord;
  outcome: StepOutcome;
  spawns: SpawnRequest[];
}

/** What a decision does to the agent's frames, without applying it. */
export function outcomeOf(record: AgentRecord, decision: Decision): StepOutcome {
  if (decision.kind === 'call' || decision.kind === 'function') return 'call';
  if (decision.kind === 'result') return record.stack !== null ? 'return' : 'terminate';
  if (decision.kind === 'ask') return 'ask';
  if (decision.kind === 'fork' && decision.join) return 'join';
  return 'continue';
}

/**
 * Applies a decision to an agent record. Pure: the returned record is what the
 * state file must say once the step is complete. `session` is the session the
 * step ran in (null for scripts, which leave the agent's session as it was).
 * Targets and `cd` paths in the decision are already resolved.
 */
export function applyDecision(
  record: AgentRecord,
  decision: ResolvedDecision,
  session: string | null,
  fresh: readonly (string | null)[] = [],
): Applied {
  // `{{ask_id}}` lives for the one state an answer led to, as `{{input}}` does; a state the cost gate stopped before has not run yet.
  const gated = decision.kind === 'ask' && decision.ask.gate?.kind === 'state';
  const applied = apply(
    record.answered_ask === undefined || gated ? record : withoutAnswered(record),
    decision,
    session,
  );
  // A step that ran is counted (a state the gate stopped before did not run); a terminated agent runs none again.
  if (!gated && applied.record.status === 'active') applied.record.steps = (record.steps ?? 0) + 1;
  // Every step reserves new ids for the next fresh or branched turns; unused ones cost nothing.
  const own = fresh[0];
  if (own != null && applied.record.status === 'active') applied.record.next_session = own;
  applied.spawns.forEach((s, i) => {
    const id = fresh[i + 1];
    if (id != null) s.nextSession = id;
  });
  return applied;
}

function withoutAnswered(record: AgentRecord): AgentRecord {
  const { answered_ask: _a, ...rest } = record;
  return rest;
}

/** The record in the scope `key` (null: the run's own) at workflow depth `depth`; absent fields mean the run's own and 0. */
function inScope(record: AgentRecord, key: string | null | undefined, depth: number): AgentRecord {
  const { scope: _s, workflow_depth: _d, ...rest } = record;
  const out: AgentRecord = rest;
  if (key) out.scope = key;
  if (depth > 0) out.workflow_depth = depth;
  return out;
}

/** Where a cross-workflow tag leads, once resolved; a tag that is not one stays in the agent's scope. */
function calleeScope(
  record: AgentRecord,
  workflow: ResolvedWorkflowTarget | undefined,
): { scope: string | undefined; depth: number | undefined } {
  if (!workflow) return { scope: record.scope, depth: record.workflow_depth };
  return { scope: workflow.scope ?? undefined, depth: (record.workflow_depth ?? 0) + 1 };
}

function apply(record: AgentRecord, decision: ResolvedDecision, session: string | null): Applied {
  // A markdown turn fixes the agent's session, and a pending <call> branch is then used up.
  const current = session ?? record.session;
  const after =
    session === null
      ? { session: record.session, branchFrom: record.branchFrom }
      : { session, branchFrom: null };
  switch (decision.kind) {
    case 'goto':
      return {
        outcome: 'continue',
        spawns: [],
        record: { ...record, ...after, state: decision.target, input: decision.input ?? null },
      };
    case 'reset': {
      // A <reset-workflow> leaves the caller's workflow for good: no frame to return to, depth 0.
      const base = decision.workflow
        ? { ...inScope(record, decision.workflow.scope, 0), stack: null }
        : record;
      return {
        outcome: 'continue',
        spawns: [],
        record: {
          ...base,
          state: decision.target,
          session: null,
          branchFrom: null,
          cwd: decision.created?.path ?? decision.cd ?? record.cwd,
          input: decision.input ?? null,
          ...(decision.created ? { worktree: decision.created } : {}),
          ...(decision.taskFolder
            ? { task_folder: decision.taskFolder.path, task_number: decision.taskFolder.number }
            : {}),
        },
      };
    }
    case 'call':
    case 'function': {
      const frame: Frame = { state: decision.returnTo, session: current };
      // A cross-workflow frame brings the caller back to its own scope, directory and depth.
      if (decision.workflow)
        frame.workflow = {
          scope: record.scope ?? null,
          cwd: record.cwd,
          depth: record.workflow_depth ?? 0,
        };
      const callee = decision.workflow
        ? inScope(record, decision.workflow.scope, (record.workflow_depth ?? 0) + 1)
        : record;
      return {
        outcome: 'call',
        spawns: [],
        record: {
          ...callee,
          state: decision.target,
          session: null,
          // A <call> branches from the caller on its first markdown turn; a <function> starts clean.
          branchFrom: decision.kind === 'call' ? (after.branchFrom ?? current) : null,
          stack: pushFrame(record.stack, frame),
          cwd: decision.cd ?? record.cwd,
          input: decision.input ?? null,
        },
      };
    }
    case 'fork': {
      const spawns = decision.workers.map((w) => ({
        id: w.id,
        parent: record.id,
        target: w.target,
        attributes: w.attributes,
        input: w.input,
        cwd: w.created?.path ?? w.cd ?? record.cwd,
        worktree: w.created,
        taskFolder: w.taskFolder,
        ...(w.budget !== undefined ? { budget: w.budget } : {}),
        ...calleeScope(record, w.workflow),
      }));
      // The workers name their parent: a <join> gathers every worker of the agent not joined yet, of this fork or earlier ones.
      const next: AgentRecord = {
        ...record,
        ...after,
        state: decision.next,
        input: decision.nextInput ?? null,
      };
      if (decision.join) next.joining = true;
      if (decision.worktree) next.worktree = decision.worktree;
      return { outcome: decision.join ? 'join' : 'continue', spawns, record: next };
    }
    case 'ask':
      // The session is kept, as for <goto>: the answer's state continues the conversation that asked.
      // A state the cost gate stopped before keeps its input for when it runs.
      return {
        outcome: 'ask',
        spawns: [],
        record: {
          ...record,
          ...after,
          input: decision.ask.gate?.kind === 'state' ? record.input : null,
          ask: decision.ask,
        },
      };
    case 'result': {
      const top = record.stack;
      if (top === null) {
        const finished = decision.worktree ? { worktree: decision.worktree } : {};
        return {
          outcome: 'terminate',
          spawns: [],
          record: {
            ...record,
            ...after,
            ...finished,
            status: 'terminated',
            result: decision.payload,
            input: null,
          },
        };
      }
      const caller = top.frame.workflow;
      const back = caller
        ? { ...inScope(record, caller.scope, caller.depth), cwd: caller.cwd }
        : record;
      return {
        outcome: 'return',
        spawns: [],
        record: {
          ...back,
          state: top.frame.state,
          session: top.frame.session,
          branchFrom: null,
          stack: top.below,
          input: decision.payload,
        },
      };
    }
    default:
      return exhaustive(decision);
  }
}

/** The record of a worker a step forked, as it starts: fresh session, empty stack, in its workflow's scope. */
export function workerRecord(spawn: SpawnRequest): AgentRecord {
  const record: AgentRecord = {
    id: spawn.id,
    state: spawn.target,
    session: null,
    branchFrom: null,
    stack: null,
    cwd: spawn.cwd,
    attributes: spawn.attributes,
    input: spawn.input ?? null,
    status: 'active',
    parent: spawn.parent,
  };
  if (spawn.nextSession !== undefined) record.next_session = spawn.nextSession;
  if (spawn.worktree !== undefined) record.worktree = spawn.worktree;
  if (spawn.scope !== undefined) record.scope = spawn.scope;
  if (spawn.depth) record.workflow_depth = spawn.depth;
  if (spawn.taskFolder !== undefined) {
    record.task_folder = spawn.taskFolder.path;
    record.task_number = spawn.taskFolder.number;
  }
  return record;
}
