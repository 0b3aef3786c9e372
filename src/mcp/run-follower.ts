import type { RunEvent } from '../../machines/run-events.js';
import type { AgentAsk } from '../../machines/types.js';
import { usd } from '../../machines/money.js';
import type { ServedRun } from '../serve/served-run.js';
import type { Returned } from './run-report.js';

/** How a call follows a run. */
export interface FollowOptions {
  /** How long to wait for the run to end or ask; 0 returns at once. */
  waitMs: number;
  /** The call's: aborted when the client cancels it or goes away (the run goes on). */
  signal: AbortSignal;
  /** Told what the run does as it does it (MCP progress notifications). */
  progress?: (message: string) => void;
  /** Asks the person in place (MCP elicitation): their answer, or undefined when they would not answer there. */
  elicit?: (ask: AgentAsk, signal: AbortSignal) => Promise<string | undefined>;
  /** Gives an ask its answer; throws when it was no longer pending. */
  answer: (ask: AgentAsk, text: string) => Promise<void>;
}

/** The asks each run has out to a person through some call, so that two calls never ask the same question. */
const eliciting = new WeakMap<ServedRun, Set<string>>();

/** A run's event as one line of progress, or undefined for the events a caller need not hear of. */
export function progressLine(run: ServedRun, e: RunEvent): string | undefined {
  const cost = ` (${usd(run.costUsd)})`;
  switch (e.type) {
    case 'step.done':
      return `${e.agentId}: ${e.from} -> ${e.to ?? e.decision.kind}${e.workers.length > 0 ? `, forked ${e.workers.length}` : ''}${cost}`;
    case 'ask.created':
      return `${e.ask.agent_id} asks: ${e.ask.prompt}`;
    case 'agent.failed':
      return `${e.agentId} failed in ${e.state}: ${e.failure.message}${cost}`;
    case 'run.finished':
      return `run ${e.status}${cost}`;
    default:
      return undefined;
  }
}

/** Resolves at the run's next event or end, at `deadline`, or when `signal` aborts: whether time or the caller ran out. */
function nextChange(run: ServedRun, deadline: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    let stop = () => {};
    const settle = (out: boolean) => {
      clearTimeout(timer);
      stop();
      signal.removeEventListener('abort', onAbort);
      resolve(out);
    };
    const onAbort = () => settle(true);
    if (signal.aborted) return resolve(true);
    signal.addEventListener('abort', onAbort);
    timer = setTimeout(() => settle(true), Math.max(0, deadline - Date.now()));
    stop = run.watch(() => settle(false));
  });
}

/**
 * Follows a run until it ends, waits on a person, or the wait runs out.
 * A question is put to the person in place when the client can
 * (`elicit`); answered, the run goes on and so does the wait. Declined, or
 * with no way to ask in place, the call returns with the question pending.
 */
export async function followRun(run: ServedRun, o: FollowOptions): Promise<Returned> {
  const deadline = Date.now() + o.waitMs;
  const declined = new Set<string>();
  const stopProgress = o.progress
    ? run.watch((e) => {
        const line = e && progressLine(run, e);
        if (line) o.progress!(line);
      })
    : () => {};
  try {
    for (;;) {
      if (run.ended) return 'ended';
      if (run.heldBy !== undefined) return 'at-once';
      const open = [...run.asks.values()].filter(
        (a) => !declined.has(a.id) && !run.answering.has(a.id),
      );
      if (open.length > 0) {
        if (!o.elicit) return 'asking';
        const busy = eliciting.get(run) ?? new Set<string>();
        eliciting.set(run, busy);
        const ask = open.find((a) => !busy.has(a.id));
        if (ask) {
          busy.add(ask.id);
          let text: string | undefined;
          try {
            text = await o.elicit(ask, o.signal);
          } finally {
            busy.delete(ask.id);
          }
          if (o.signal.aborted) return 'waited';
          if (text === undefined) {
            declined.add(ask.id);
            return 'asking';
          }
          // Answered meanwhile (a timeout, another client): the run went on either way.
          await o.answer(ask, text).catch(() => {});
          continue;
        }
        // Every question is out to the person through another call: wait for the run to move.
      } else if (o.waitMs === 0) return 'at-once';
      if (await nextChange(run, deadline, o.signal)) return 'waited';
    }
  } finally {
    stopProgress();
  }
}
