import { assertEvent } from 'xstate';
import { tooManyAgents } from './gate-work.js';
import { reusedId } from './run-store.js';
import { inFlight } from './scheduler.js';
import type { SupervisorContext, SupervisorEvent } from './supervisor-types.js';

/** What a supervisor guard is handed: the run's context and the event being taken. */
interface GuardArgs {
  context: SupervisorContext;
  event: SupervisorEvent;
}

/**
 * The supervisor's guards, by the names its transitions use: when the run
 * is over, when its state is on disk, and which way a step's end, a step's
 * failure or an ask's expiry goes. Apart from the actions
 * (machines/supervisor-actions.ts) because they only read.
 */
export const supervisorGuards = {
  finished: ({ context }: GuardArgs) => {
    const { store, slots } = context.work;
    if (store.live === 0 || context.halted || (context.draining && inFlight(slots) === 0))
      return true;
    // Every live agent waits on a join: their workers are paused, so nothing can happen until a resume.
    if (store.live === store.joining) return true;
    // --on-ask=pause: every live agent waits for an answer (or on a join), so nothing can happen until one comes.
    return context.stopWhenAsking && store.live === store.asking + store.joining;
  },
  flushed: ({ context }: GuardArgs) => context.persisted >= context.version,
  reusesId: ({ context, event }: GuardArgs) => {
    assertEvent(event, 'step.done');
    return (
      event.spawns.length > 0 &&
      reusedId(
        context.work.store,
        event.spawns.map((s) => s.id),
      ) !== undefined
    );
  },
  tooManyAgents: ({ context, event }: GuardArgs) => {
    assertEvent(event, 'step.done');
    const { store } = context.work;
    return tooManyAgents(store, event.record, event.spawns.length, event.from) !== undefined;
  },
  pauses: ({ event }: GuardArgs) => {
    assertEvent(event, 'step.failed');
    return event.failure.pauses;
  },
  isWorker: ({ context, event }: GuardArgs) => {
    assertEvent(event, 'step.failed');
    return (
      !event.failure.halts && context.work.store.agents.get(event.agentId)?.parent !== undefined
    );
  },
  expiryFails: ({ context, event }: GuardArgs) => {
    assertEvent(event, 'ask.expire');
    const record = context.work.store.agents.get(event.agentId);
    return (
      record?.status === 'active' &&
      record.parent === undefined &&
      record.ask?.id === event.askId &&
      record.ask.timeout_next === undefined
    );
  },
};
