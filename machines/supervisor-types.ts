import type { AnyActorRef, ErrorActorEvent } from 'xstate';
import type { AgentToSupervisorEvent } from './agent-types.js';
import type { BudgetLine, StepReservation } from './budget-line.js';
import type { FrameWaiters } from './frame-waiters.js';
import type { ForkedWorker, RunEvent } from './run-events.js';
import type { RunStore } from './run-store.js';
import type { Slots } from './scheduler.js';
import type { AccountWidthNow, AgentRecord, RunStatus } from './types.js';

/*
 * The supervisor's types: what it is given, what it keeps, the events it
 * takes and emits, and what it ends with. Kept apart from the machine so the
 * runtime (persister, inspector) can name them without its logic.
 */

export interface SupervisorInput {
  store: RunStore;
  maxParallel: number;
  /** Most markdown (Claude Code) steps at once, on top of maxParallel: each takes ~300 MB. */
  maxMarkdown?: number;
  /** `--on-ask=pause`: end the run (status `asking`) once every live agent waits for an answer; else wait for answers. */
  stopWhenAsking?: boolean;
  /** Asks whose time ran out before the run (re)started: settled before anything else, as if they had just expired. */
  dueAsks?: ReadonlyArray<{ agentId: string; askId: string }>;
  /** `--on-ask=reject`: nobody can answer the cost gate, so a gate stops the run (paused) with one line. */
  gateStops?: boolean;
  /** Answers a `--resume` gave to cost gates: applied as the run starts, before any agent runs. */
  gateAnswers?: ReadonlyArray<{ askId: string; text: string }>;
  /**
   * A markdown state's forecast (the run's forecaster: history, else the
   * prior), which its steps reserve of the budget before they start
   * (budget-line.ts). Absent: steps reserve only what this run saw them cost.
   */
  reserve?: (scope: string | undefined, state: string) => StepReservation | undefined;
}

/**
 * The run's working set. These objects are changed in place, by the actions
 * below only, through their own modules: at fan-out they hold thousands of
 * agents, and copying them on every step (as `assign` would) costs O(agents)
 * per step (measured: docs/architecture.md). Everything else in the context
 * is updated with `assign`.
 */
export interface RunWork {
  store: RunStore;
  /** Agents waiting for a slot; an agent that has not run yet has no actor (undefined) until it gets one. */
  slots: Slots<AnyActorRef | undefined>;
  /** Bottom frames of the live agents that have an actor, by agent id. */
  actors: Map<string, AnyActorRef>;
  /** Agent records new to the supervisor (forked, or live when the run started). */
  toSpawn: AgentRecord[];
  /** Frames waiting for answers to their agents' asks. */
  asks: FrameWaiters;
  /** Frames waiting for their agents' workers (`<join>`). */
  joins: FrameWaiters;
  /** What the running paid steps reserved of the budget. */
  budget: BudgetLine;
}

export interface SupervisorContext {
  work: RunWork;
  /** Bumped on every change to the store. */
  version: number;
  /** Highest version known to be on disk. */
  persisted: number;
  /** Set once no new step may start and running ones were stopped (a failure or an interrupt). */
  halted: boolean;
  /** Set once no new step may start but running ones may finish (the budget is spent, or a first Ctrl-C). */
  draining: boolean;
  stopWhenAsking: boolean;
  dueAsks: ReadonlyArray<{ agentId: string; askId: string }>;
  gateStops: boolean;
  gateAnswers: ReadonlyArray<{ askId: string; text: string }>;
  reserve: SupervisorInput['reserve'];
}

export type SupervisorEvent =
  | AgentToSupervisorEvent
  | { type: 'state.persisted'; version: number }
  /** The persister could not write; its error's message names the file and says what failed. */
  | { type: 'state.write_failed'; error: unknown }
  | { type: 'run.interrupt' }
  | { type: 'run.drain' }
  /** The accounts' widths changed: grant at most `max` markdown steps at once (scheduler setMarkdownCap). */
  | { type: 'slots.markdown'; max: number }
  /** An account's width changed (`width.changed`): the state file keeps it for `--status`. */
  | { type: 'account.width'; backend: string; width: AccountWidthNow }
  /** An answer to a pending ask (from the terminal or another front end); unknown or answered asks are ignored. */
  | { type: 'run.answer'; askId: string; text: string }
  /** A pending ask's time ran out (the runtime keeps the clock). */
  | { type: 'ask.expire'; agentId: string; askId: string }
  | ErrorActorEvent;

/**
 * The part of the run's event stream the supervisor produces. A fork's
 * workers are emitted as one `workers.forked`, which the composition root
 * hands the stream as one `agent.forked` each: an emit is an action object
 * of some 450 bytes in xstate, 4.5 MB held at once for a fork of 10,000.
 */
export type SupervisorEmitted =
  | Extract<
      RunEvent,
      {
        type:
          | 'step.started'
          | 'step.done'
          | 'agent.paused'
          | 'agent.failed'
          | 'agent.joined'
          | 'ask.created'
          | 'ask.answered';
      }
    >
  | { type: 'workers.forked'; parentId: string; workers: readonly ForkedWorker[] };

/**
 * The persister is told of each new version and answers with
 * `state.persisted`. `compact` asks for a full snapshot (the run is ending).
 */
export type PersisterEvent = { type: 'state.changed'; version: number; compact?: boolean };

export interface SupervisorOutput {
  status: RunStatus;
  error?: string;
}
