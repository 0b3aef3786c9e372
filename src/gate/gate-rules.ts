import type { ToldRate } from './rate-headers.js';

/**
 * The arithmetic of an account's request gate (api-gate.ts): when its next
 * model request may go. It mirrors the account's token bucket: the API's
 * headers tell its rate and what it takes at once, and each request sent
 * takes one; where an API tells nothing, the rate is learned from its
 * refusals (cut on each, grown while requests wait). Pure: the gate keeps
 * the state and the clock.
 */

/** How the gate holds requests. */
export interface GateTuning {
  /**
   * A request refused for the account's rate is held and sent again this
   * long at most, over all its refusals; past it, its 429 goes to the agent
   * CLI, whose own retries (and Raymond's 15-minute bound) take over.
   * @default 120000
   */
  maxHoldMs: number;
  /**
   * A 429 that asks a longer wait than this is passed on at once: it is not
   * a rate that frees a place within the turn.
   * @default 60000
   */
  maxWaitMs: number;
  /**
   * What a refusal multiplies a learned rate by (at most once a window of
   * two requests' spacing); a told rate is never cut.
   * @default 0.8
   */
  decrease: number;
  /**
   * How much a learned rate grows each request served while others wait.
   * @default 0.02
   */
  growth: number;
  /**
   * The same, from the first refusal until a second one cuts the rate: the
   * first spacing is a `retry-after` of whole seconds, slow for an account
   * that takes several requests a second.
   * @default 0.1
   */
  probeGrowth: number;
}

/** The tuning every gate uses; tests give their own. */
export const GATE_TUNING: GateTuning = {
  maxHoldMs: 120_000,
  maxWaitMs: 60_000,
  decrease: 0.8,
  growth: 0.02,
  probeGrowth: 0.1,
};

/** What an account's gate knows of its rate. */
export interface GateState {
  /** Requests a second the account allows; undefined until it told or refused. */
  perSecond: number | undefined;
  /** Whether the API's headers told the rate (else it was learned from refusals). */
  told: boolean;
  /** Requests the account takes at once, as far as seen (its bucket's size). */
  capacity: number;
  /** Requests it takes now, as of `at` (epoch ms). */
  tokens: number;
  at: number;
  /** No request goes before this: the wait a refusal asked. */
  holdUntil: number;
  /** When a learned rate was last cut. */
  cutAt: number;
  /** A learned rate that no refusal has cut yet: it grows by `probeGrowth`. */
  probing: boolean;
}

/** A gate that has heard nothing: requests go as they come. */
export const OPEN_GATE: GateState = {
  perSecond: undefined,
  told: false,
  capacity: 1,
  tokens: 1,
  at: 0,
  holdUntil: 0,
  cutAt: Number.NEGATIVE_INFINITY,
  probing: false,
};

/** The bucket refilled to `now`. */
function refilled(s: GateState, now: number): GateState {
  if (s.perSecond === undefined || now <= s.at) return s;
  const tokens = Math.min(s.capacity, s.tokens + ((now - s.at) / 1000) * s.perSecond);
  return { ...s, tokens, at: now };
}

/**
 * How much later than the bucket's refill a request waiting for it goes:
 * requests reach the API some milliseconds after they were sent, not all
 * equally late, and one sent the instant the bucket refills may find the
 * API's a hair short.
 */
export const SKEW_MS = 50;

/** When (epoch ms) the next request may go: past a refusal's wait, once the bucket holds one. */
export function sendAt(s: GateState, now: number): number {
  const at = Math.max(now, s.holdUntil);
  if (s.perSecond === undefined) return at;
  const { tokens } = refilled(s, at);
  return tokens >= 1 ? at : at + ((1 - tokens) / s.perSecond) * 1000 + SKEW_MS;
}

/** A request went at `now`: it takes one from the bucket. */
export function afterSend(s: GateState, now: number): GateState {
  if (s.perSecond === undefined) return s;
  const r = refilled(s, now);
  return { ...r, tokens: r.tokens - 1 };
}

/**
 * A request was answered at `now`, its headers telling the rate or not;
 * `waiting`: other requests wait for the gate, so a learned rate is in use
 * and may grow.
 */
export function afterAnswer(
  s: GateState,
  told: ToldRate | undefined,
  waiting: boolean,
  now: number,
  tuning: GateTuning,
): GateState {
  if (told) {
    const capacity = Math.max(s.told ? s.capacity : 1, told.remaining + 1);
    const r = refilled({ ...s, perSecond: told.perSecond, told: true, capacity }, now);
    // `remaining` is whole requests: the bucket holds up to one more. The gate's own count is kept
    // (it took each request it sent), unless the API has less, which others of the account took.
    const tokens = s.told ? Math.min(r.tokens, told.remaining + 1) : told.remaining;
    return { ...r, tokens, at: now };
  }
  if (s.told || s.perSecond === undefined || !waiting) return s;
  // Until a second refusal, the first spacing (whole seconds of retry-after) may be far too slow.
  const growth = s.probing ? tuning.probeGrowth : tuning.growth;
  return { ...refilled(s, now), perSecond: s.perSecond * (1 + growth) };
}

/**
 * A request was refused for the account's rate at `now`, asking to wait
 * `waitMs`: nothing goes before then, and the bucket is empty. A rate not
 * told is learned: the first refusal's wait is one request's spacing (the
 * API frees one in it), and later ones cut it.
 */
export function afterRefusal(
  s: GateState,
  waitMs: number,
  now: number,
  tuning: GateTuning,
): GateState {
  const held = { ...s, holdUntil: Math.max(s.holdUntil, now + waitMs), tokens: 0, at: now };
  if (s.told) return held;
  if (s.perSecond === undefined)
    return { ...held, perSecond: 1000 / Math.max(waitMs, 1), cutAt: now, probing: true };
  // Refusals within two spacings of a cut are the same overshoot.
  if (now - s.cutAt < 2000 / s.perSecond) return held;
  return { ...held, perSecond: s.perSecond * tuning.decrease, cutAt: now, probing: false };
}

/** Requests a minute at a rate: whole ones, or tenths below ten. */
export function perMinuteOf(perSecond: number): number {
  const n = perSecond * 60;
  return n >= 10 ? Math.round(n) : Math.round(n * 10) / 10;
}
