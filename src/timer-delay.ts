/**
 * Node fires a timer longer than 2^31-1 ms (about 24.8 days) at once, with
 * a warning: a huge `--timeout` would then kill every step as it starts.
 * Every timer whose length comes from the user (or from a far-off reset
 * time) goes through here.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A delay Node's timers keep as given: longer ones (or anything that is not
 * a number) become the longest timer, "practically never"; negative ones 0.
 */
export function timerDelay(ms: unknown): number {
  return typeof ms === 'number' && ms < MAX_TIMER_MS ? Math.max(0, ms) : MAX_TIMER_MS;
}

/** A state's `timeout:` (seconds, 0: none) as the inactivity limit of its step. */
export function stateTimeoutMs(seconds: number): number {
  return seconds === 0 ? MAX_TIMER_MS : seconds * 1000;
}
