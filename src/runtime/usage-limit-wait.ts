import { setTimeout as sleep } from 'node:timers/promises';
import { timerDelay } from '../timer-delay.js';
import { RESET_MARGIN_MS } from '../agents/width-rules.js';
import type { RunOutcome } from './run-types.js';

/** How a run waits out its usage limits. */
export interface UsageLimitWait {
  /** Resumes the run once the limit lifted. */
  resume(workflowId: string): Promise<RunOutcome>;
  /** Aborted: stop waiting (Ctrl-C); the outcome is the paused one. */
  signal: AbortSignal;
  /** Told when a wait begins, with the time it ends. */
  onWait(until: Date): void;
  /** Sleeps `ms` unless `signal` aborts first (tests give a fake clock). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  now?: () => number;
}

const realSleep = (ms: number, signal: AbortSignal) =>
  sleep(ms, undefined, { signal }).catch(() => {});

/**
 * While every live agent of the run hit a usage limit (the outcome has a
 * `waitUntil`), waits until a little past the reset and resumes it, as
 * often as it takes. In steps Node's timers can hold, so that a reset weeks
 * away does not wake the run at once. Returns the last outcome: a paused
 * one when the wait was given up.
 */
export async function waitOutUsageLimits(
  first: RunOutcome,
  options: UsageLimitWait,
): Promise<RunOutcome> {
  const now = options.now ?? Date.now;
  const pause = options.sleep ?? realSleep;
  let outcome = first;
  while (outcome.waitUntil !== undefined && !options.signal.aborted) {
    // A little past the reset: a limit given to the minute, in words or a timestamp, may lift a little late.
    const until = outcome.waitUntil + RESET_MARGIN_MS;
    options.onWait(new Date(until));
    while (now() < until && !options.signal.aborted)
      await pause(timerDelay(until - now()), options.signal);
    if (options.signal.aborted) break;
    outcome = await options.resume(outcome.workflowId);
  }
  return outcome;
}
