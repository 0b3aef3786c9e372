import type { AnyActorRef, DoneActorEvent, ErrorActorEvent } from 'xstate';
import type { SpawnRequest, StepOutcome } from './apply-decision.js';
import type { StepFailure } from './step-failure.js';
import type { AgentRecord, ResolvedDecision, WorktreeRef } from './types.js';
import type { WorktreeStart } from './worktree-types.js';

/*
 * The agent machine's types: what a frame actor takes, holds and reports,
 * and what it tells the supervisor. Kept apart from the machine so the
 * runtime and the supervisor can name them without reading its logic.
 */

/**
 * Input of one frame actor. Depth 0 is the agent's bottom frame, the actor
 * the supervisor holds; a callee frame's depth is the number of return
 * frames below it.
 */
export interface AgentInput {
  record: AgentRecord;
  depth: number;
}

/** What the supervisor hands an agent with its step slot: the run's figures the step needs. */
export interface StepGrant {
  /** The agent's fork counter as persisted: its workers are named from it. */
  forkCount: number;
  /** Last known totals of the sessions the step may continue. */
  sessionCosts: Record<string, number>;
  /** The cost gate (`--confirm-over`), when it is on: its amount, and what the run had spent when the slot was granted. */
  gate?: { amountUsd: number; spentUsd: number };
  /** A branch budget (`<fork budget>`) is spent: the step fails at once with this message, running nothing. */
  refused?: string;
}

/** What one state execution reports (machines/step-runner.ts). */
export interface StepResult {
  /** The decision with its targets resolved and its workers named. */
  decision: ResolvedDecision;
  /** Session the step ran in; null for scripts. */
  session: string | null;
  costUsd: number;
  /** Last known total cost of each Claude Code session the step used. */
  sessionCosts?: Record<string, number>;
  /** New session ids to reserve: the agent's own, then one per forked worker (null: its first state is a script). */
  freshSessions?: (string | null)[];
  /** The agent's worktree folder, when the step got it one (its first run): the record takes it before the decision applies. */
  acquired?: { cwd: string; worktree: WorktreeRef };
  /** Where the agent's next step starts in its worktree (src/worktrees/step-start.ts): the record takes it after the decision. */
  startsNext?: WorktreeStart;
}

/** How a frame's step ended, as the run's step runner (machines/step-runner.ts) sends it to the frame. */
export type StepEndEvent =
  { type: 'step.finished'; output: StepResult } | { type: 'step.errored'; error: unknown };

/** Input of one step: the agent as it stands, and its grant. */
export interface StepInput extends StepGrant {
  record: AgentRecord;
}

export interface AgentContext {
  record: AgentRecord;
  depth: number;
  callee: AnyActorRef | null;
  grant: StepGrant;
}

/**
 * How a frame actor ended, handed to the agent's bottom frame (or, for the
 * bottom frame, to the supervisor): it `called` (its callee is the new top
 * frame), `returned` (the frame below it is), the agent `terminated`, or it
 * `failed`.
 */
export interface AgentOutput {
  kind: 'called' | 'returned' | 'terminated' | 'failed';
  record: AgentRecord;
}

/** The supervisor's answer to a frame waiting in `asking`: the agent's record with the answer (or the timeout) applied. */
export type AskResolvedEvent = { type: 'ask.resolved'; record: AgentRecord };

/** The supervisor's answer to a frame waiting on a `<join>`: the agent's record with its workers' entries as input. */
export type JoinResolvedEvent = { type: 'join.resolved'; record: AgentRecord };

/** Everything a frame actor takes: its slot, the supervisor's answers, its step's end (from the step runner) and its callee's. */
export type AgentEvent =
  | ({ type: 'step.start' } & StepGrant)
  | AskResolvedEvent
  | JoinResolvedEvent
  | StepEndEvent
  | DoneActorEvent<AgentOutput>
  | ErrorActorEvent;

/** Events an agent sends to the actor registered with systemId `supervisor`. */
export type AgentToSupervisorEvent =
  | { type: 'agent.ready'; agentId: string; ref: AnyActorRef }
  | {
      type: 'step.done';
      agentId: string;
      /** The frame that ran the step: the supervisor queues it again when it goes on. */
      ref: AnyActorRef;
      from: string;
      decision: ResolvedDecision;
      record: AgentRecord;
      spawns: SpawnRequest[];
      costUsd: number;
      sessionCosts?: Record<string, number>;
      outcome: StepOutcome;
    }
  | { type: 'step.failed'; agentId: string; state: string; failure: StepFailure }
  /** A frame waits for the answer to its agent's ask: the supervisor sends it `ask.resolved`. */
  | { type: 'agent.asking'; agentId: string; ref: AnyActorRef }
  /** A frame waits for its agent's workers (`<join>`): the supervisor sends it `join.resolved`. */
  | { type: 'agent.joining'; agentId: string; ref: AnyActorRef };
