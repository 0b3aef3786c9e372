import type { RunEvent } from '../../machines/run-events.js';
import type { WidthReason } from '../../machines/types.js';
import { RaymondError } from '../errors.js';
import type { GateView } from '../gate/api-gate.js';
import { perMinuteOf } from '../gate/gate-rules.js';

/**
 * The arithmetic of an account's width, apart from where its state lives:
 * AccountWidth keeps it in the run's memory, SharedWidth (src/queue/) in
 * Redis for every queue worker of the account. Both change it only here, so
 * one run and ten workers adapt the same way.
 */

/** How fast the width of an account adapts. */
export interface WidthTuning {
  /**
   * Turns started at once before the account has said anything: the width
   * doubles from here each round of successes until the first refusal.
   * @default 8
   */
  start: number;
  /**
   * What a refusal multiplies the width by (of the turns then running, when
   * fewer): a refused rate is over the limit by a little, not by half.
   * @default 0.7
   */
  decrease: number;
  /**
   * Refusals within this long of a decrease are the same overshoot: one
   * decrease for a burst, not one each.
   * @default 1000
   */
  windowMs: number;
  /**
   * No turn starts this long after a refusal that said no wait: the turns
   * already running retry first.
   * @default 1000
   */
  holdMs: number;
  /**
   * Rounds of successes per step at and past the width last refused (one
   * below it): the limit is there, so probing it often costs refusals.
   * @default 4
   */
  plateau: number;
}

/** How long past a usage limit's reset turns wait: a reset told to the minute may lift a few seconds late. */
export const RESET_MARGIN_MS = 5_000;

/** The tuning every run uses; tests give their own. */
export const WIDTH_TUNING: WidthTuning = {
  start: 8,
  decrease: 0.7,
  windowMs: 1000,
  holdMs: 1000,
  plateau: 4,
};

/** What an account's width remembers between turns. */
export interface WidthState {
  /** Turns that may run at once. */
  width: number;
  /** Successes since the width last grew by one. */
  credit: number;
  /** Until the first refusal, the width doubles each round (slow start). */
  probing: boolean;
  /** When (epoch ms) the width last fell: refusals within the window of it are the same overshoot. */
  lastDecrease: number;
  /** The width the account last refused at: growth slows near it, where the limit was found. */
  refusedAt: number;
  /** No turn starts before this (epoch ms). */
  holdUntil: number;
}

/** A width that has heard nothing from its account yet. */
export function freshWidth(ceiling: number, tuning: WidthTuning): WidthState {
  return {
    width: Math.max(1, Math.min(ceiling, tuning.start)),
    credit: 0,
    probing: true,
    lastDecrease: Number.NEGATIVE_INFINITY,
    refusedAt: Number.POSITIVE_INFINITY,
    holdUntil: 0,
  };
}

/**
 * A turn the account served ended; `full`: every place of the width was
 * taken when it did. Only a width in use grows: an idle account proves
 * nothing about its limit.
 */
export function afterServed(
  s: WidthState,
  full: boolean,
  ceiling: number,
  tuning: WidthTuning,
): WidthState {
  if (!full || s.width >= ceiling) return s;
  // Back towards the width refused last, one a round; past it, one every `plateau` rounds.
  const rounds = s.width + 1 >= s.refusedAt ? tuning.plateau : 1;
  const credit = s.credit + (s.probing ? 1 : 1 / (s.width * rounds));
  if (credit < 1) return { ...s, credit };
  return { ...s, credit: 0, width: Math.min(ceiling, s.width + 1) };
}

/**
 * The account refused a request (429 for its rate, 529 for its load) while
 * `running` turns ran; the turn retries after `delayMs`. No turn starts
 * during the wait (at least `holdMs`); the first refusal of a window takes
 * the width to `decrease` times the turns running, and says so (`why`).
 */
export function afterRefusal(
  s: WidthState,
  refusal: { now: number; running: number; delayMs: number | null; ceiling: number },
  tuning: WidthTuning,
): WidthState {
  const { now, running, delayMs, ceiling } = refusal;
  const held: WidthState = {
    ...s,
    probing: false,
    holdUntil: Math.max(s.holdUntil, now + Math.max(delayMs ?? 0, tuning.holdMs)),
  };
  if (now - s.lastDecrease < tuning.windowMs) return held;
  const base = Math.min(s.width, Math.max(1, running));
  return {
    ...held,
    lastDecrease: now,
    credit: 0,
    refusedAt: s.width,
    width: Math.min(ceiling, Math.max(1, Math.floor(base * tuning.decrease))),
  };
}

/** Why a refusal of this status narrows the width. */
export const refusalReason = (status: 429 | 529): WidthReason =>
  status === 429 ? 'rate-limited' : 'overloaded';

/**
 * The `width.changed` event a change from `was` to `s` is worth, if any:
 * slow start's growth says nothing a person needs, and neither does growth
 * that changed nothing; a narrowing is news once the account has refused.
 */
export function widthNews(
  backend: string,
  ceiling: number,
  was: number,
  s: WidthState,
  why: WidthReason,
): RunEvent | undefined {
  if (why === 'recovering' && (s.probing || was === s.width)) return undefined;
  return { type: 'width.changed', backend, width: s.width, was, ceiling, why };
}

/**
 * What tells a run the rate an account's gate sends at: `news` gets the
 * `width.changed` (`paced`, the width as it is) when the rate is first
 * known, and each time it moved by a tenth or more since it was told.
 */
export function paceTeller(
  backend: string,
  news: (e: RunEvent) => void,
): (view: GateView, width: number, ceiling: number) => void {
  let last: number | undefined;
  return ({ perSecond, told }, width, ceiling) => {
    if (perSecond === undefined) return;
    const perMinute = perMinuteOf(perSecond);
    if (last !== undefined && Math.abs(perMinute - last) < last / 10) return;
    last = perMinute;
    news({
      type: 'width.changed',
      backend,
      width,
      was: width,
      ceiling,
      why: 'paced',
      perMinute,
      told,
    });
  };
}

/** The event of a usage limit that parks the account until `until` (epoch ms): no turn starts before. */
export function parkNews(backend: string, ceiling: number, was: number, until: number): RunEvent {
  const at = new Date(until).toISOString();
  return { type: 'width.changed', backend, width: 0, was, ceiling, why: 'usage-limit', until: at };
}

/** What a turn that would start while the account is parked gets: its agent pauses until the reset, having spent nothing. */
export function parkedError(message: string, until: number): RaymondError {
  return new RaymondError('ERR_USAGE_LIMIT', message, {
    // The reset itself: the run's wait adds its own margin (usage-limit-wait.ts).
    details: { resetsAt: until - RESET_MARGIN_MS, costUsd: 0 },
  });
}
