import { askExpired, pendingAsks } from '../../machines/asks.js';
import type { AgentAsk, AgentRecord } from '../../machines/types.js';
import { MAX_TIMER_MS } from '../timer-delay.js';

/** Tells the run that an ask's time ran out. */
export type ExpireAsk = (agentId: string, askId: string) => void;

/** The timers of a run's pending asks. */
export interface AskClock {
  /** Starts the timer of an ask with a `timeout_at`; one already due fires at once (a resumed run's). */
  watch(ask: AgentAsk): void;
  /** Stops every timer (the run ended). */
  close(): void;
}

/**
 * Keeps the clock of pending asks outside the statecharts, which stay free
 * of time: when an ask is due, `expire` tells the supervisor, which checks
 * that the ask is still pending. A due time past Node's longest timer is
 * reached in several waits.
 */
export function createAskClock(expire: ExpireAsk, now: () => number = Date.now): AskClock {
  const timers = new Set<NodeJS.Timeout>();
  const wait = (ask: AgentAsk, due: number) => {
    const timer = setTimeout(
      () => {
        timers.delete(timer);
        if (now() >= due) expire(ask.agent_id, ask.id);
        else wait(ask, due);
      },
      Math.min(Math.max(0, due - now()), MAX_TIMER_MS),
    );
    timers.add(timer);
  };
  return {
    watch(ask) {
      if (ask.timeout_at !== undefined) wait(ask, Date.parse(ask.timeout_at));
    },
    close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}

/** Asks whose time ran out while no run watched them: settled as the run starts. */
export function dueAsks(agents: Iterable<AgentRecord>): Array<{ agentId: string; askId: string }> {
  const now = Date.now();
  return pendingAsks(agents)
    .filter((a) => askExpired(a, now))
    .map((a) => ({ agentId: a.agent_id, askId: a.id }));
}
