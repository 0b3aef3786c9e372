import type { RunEvent } from '../../machines/run-events.js';
import type { AgentAsk } from '../../machines/types.js';
import type { CostRow } from '../../machines/cost-table.js';
import { emptyLiveModel, foldLiveEvent, type LiveAgent, type LiveRun } from './live-fold.js';

/**
 * The input of the live page besides the event stream: the run as it
 * stands after the event numbered `seq`. `recent` holds the last events
 * the log shows, so a page opened late still has some history.
 */
export interface LiveSnapshot {
  seq: number;
  run: LiveRun;
  agents: LiveAgent[];
  asks: AgentAsk[];
  /** The run's cost by state, dearest first (CostTable rows: their share is of `run.costUsd`). */
  byState: CostRow[];
  recent: Array<{ seq: number; event: RunEvent }>;
}

/** How many log-worthy events a snapshot keeps. */
export const RECENT_EVENTS = 200;
/** The events the page's log shows (the others only move agents). */
export const LOGGED_EVENTS: ReadonlySet<RunEvent['type']> = new Set<RunEvent['type']>([
  'run.started',
  'step.done',
  'agent.paused',
  'agent.failed',
  'agent.joined',
  'permission.denied',
  'ask.created',
  'ask.pending',
  'ask.answered',
  'print',
  'warning',
  'width.changed',
  'run.finished',
]);

/** Folds a run's events into what the live page needs; O(1) per event. */
export interface LiveTracker {
  event(seq: number, e: RunEvent): void;
  snapshot(): LiveSnapshot;
  /** Whether an ask is waiting for its answer. */
  pending(askId: string): boolean;
}

/** A tracker of one run, fed every RunEvent in order. */
export function createLiveTracker(): LiveTracker {
  const model = emptyLiveModel();
  const recent: Array<{ seq: number; event: RunEvent }> = [];
  let last = 0;

  return {
    event(seq, e) {
      last = seq;
      foldLiveEvent(model, e);
      if (!LOGGED_EVENTS.has(e.type)) return;
      recent.push({ seq, event: e });
      if (recent.length > RECENT_EVENTS) recent.shift();
    },
    snapshot: () => ({
      seq: last,
      run: { ...model.run },
      agents: [...model.agents.values()].map((a) => ({ ...a })),
      asks: [...model.asks.values()],
      byState: model.byState.rows(model.run.costUsd),
      recent: [...recent],
    }),
    pending: (askId) => model.asks.has(askId),
  };
}
