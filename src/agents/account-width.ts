import type { RunEventSink } from '../../machines/run-events.js';
import type { WidthReason } from '../../machines/types.js';
import { RaymondError } from '../errors.js';

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

interface Waiter {
  go: () => void;
  fail: (err: Error) => void;
}

/**
 * How many turns a run starts at once against one account of one backend:
 * slow start, then additive increase and multiplicative decrease (AIMD) on
 * the account's refusals (429 rate limits and 529 overloads), never above
 * the ceiling (`--max-parallel`, the machine's turn slots). Turns already
 * running are never stopped: the account gets fewer new ones. A usage limit
 * with a known reset parks the account: no turn starts before the reset.
 */
export class AccountWidth {
  private width: number;
  private running = 0;
  /** Successes since the width last grew by one. */
  private credit = 0;
  /** Until the first refusal, the width doubles each round (slow start). */
  private probing = true;
  private lastDecrease = Number.NEGATIVE_INFINITY;
  /** The width the account last refused at: growth slows near it, where the limit was found. */
  private refusedAt = Number.POSITIVE_INFINITY;
  private holdUntil = 0;
  private parkedUntil = 0;
  private parkMessage = '';
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly waiters: Waiter[] = [];

  constructor(
    readonly backend: string,
    readonly ceiling: number,
    private readonly emit: RunEventSink,
    private readonly tuning: WidthTuning = WIDTH_TUNING,
    private readonly now: () => number = Date.now,
    /** Told every width, slow start's included (0 while parked): the run grants no more markdown steps than that. */
    private readonly onWidth: (width: number) => void = () => {},
  ) {
    this.width = Math.max(1, Math.min(ceiling, tuning.start));
    onWidth(this.width);
  }

  /** Turns that may run at once now. */
  get current(): number {
    return this.width;
  }

  /**
   * Waits for a turn's place: under the width and past any hold. Aborted:
   * throws ERR_AGENT_FAILED `stopped`; parked: throws ERR_USAGE_LIMIT.
   */
  async acquire(signal: AbortSignal): Promise<void> {
    if (this.parkedUntil !== 0) {
      if (this.now() < this.parkedUntil) throw this.parkedError();
      // The reset came while the run went on (its scripts, say): the run may grant its markdown steps again.
      this.parkedUntil = 0;
      this.onWidth(this.width);
    }
    if (this.waiters.length === 0 && this.open()) {
      this.running++;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        go: () => {
          signal.removeEventListener('abort', stop);
          this.running++;
          resolve();
        },
        fail: (err) => {
          signal.removeEventListener('abort', stop);
          reject(err);
        },
      };
      const stop = () => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(new RaymondError('ERR_AGENT_FAILED', 'stopped'));
      };
      if (signal.aborted) return stop();
      signal.addEventListener('abort', stop, { once: true });
      this.waiters.push(waiter);
      this.pump();
    });
  }

  /** A turn ended; `answered` when the account served it (it may have been refused on the way). */
  release(answered: boolean): void {
    const full = this.running >= this.width;
    this.running = Math.max(0, this.running - 1);
    // Grow only a width in use: an idle account proves nothing about its limit.
    if (answered && full && this.width < this.ceiling) {
      // Back towards the width refused last, one a round; past it, one every `plateau` rounds.
      const rounds = this.width + 1 >= this.refusedAt ? this.tuning.plateau : 1;
      this.credit += this.probing ? 1 : 1 / (this.width * rounds);
      if (this.credit >= 1) {
        this.credit = 0;
        this.set(this.width + 1, 'recovering');
      }
    }
    this.pump();
  }

  /** The account refused a request for its rate (429) or its load (529); the turn retries after `delayMs`. */
  limited(status: 429 | 529, delayMs: number | null): void {
    const now = this.now();
    this.holdUntil = Math.max(this.holdUntil, now + Math.max(delayMs ?? 0, this.tuning.holdMs));
    this.probing = false;
    if (now - this.lastDecrease >= this.tuning.windowMs) {
      this.lastDecrease = now;
      this.credit = 0;
      this.refusedAt = this.width;
      const base = Math.min(this.width, Math.max(1, this.running));
      this.set(
        Math.max(1, Math.floor(base * this.tuning.decrease)),
        status === 429 ? 'rate-limited' : 'overloaded',
      );
    }
    this.pump();
  }

  /**
   * The account's usage is spent until `resetsAt` (epoch ms): no turn starts
   * before then (and RESET_MARGIN_MS more). Each turn that would start,
   * waiting or new, is refused with ERR_USAGE_LIMIT and its agent pauses
   * with that reset, having spent nothing; the run then waits for the reset
   * as a whole (or ends paused with `--no-wait`). Turns already running finish.
   */
  park(resetsAt: number, message: string): void {
    const until = resetsAt + RESET_MARGIN_MS;
    if (until <= this.parkedUntil) return;
    this.parkedUntil = until;
    this.parkMessage = message;
    this.onWidth(0);
    this.emit({
      type: 'width.changed',
      backend: this.backend,
      width: 0,
      was: this.width,
      ceiling: this.ceiling,
      why: 'usage-limit',
      until: new Date(until).toISOString(),
    });
    for (const w of this.waiters.splice(0)) w.fail(this.parkedError());
  }

  /** Stops the timer (the run ended); waiting turns are the run's to stop. */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private parkedError(): RaymondError {
    return new RaymondError('ERR_USAGE_LIMIT', this.parkMessage, {
      // The reset itself: the run's wait adds its own margin (usage-limit-wait.ts).
      details: { resetsAt: this.parkedUntil - RESET_MARGIN_MS, costUsd: 0 },
    });
  }

  private open(): boolean {
    const now = this.now();
    return this.running < this.width && now >= this.holdUntil;
  }

  /** Starts every waiter that fits; else wakes when the hold ends. */
  private pump(): void {
    while (this.waiters.length > 0 && this.open()) this.waiters.shift()!.go();
    const now = this.now();
    if (this.waiters.length === 0 || this.holdUntil <= now || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, this.holdUntil - now);
  }

  private set(width: number, why: WidthReason): void {
    const was = this.width;
    this.width = Math.min(this.ceiling, width);
    // While parked the run is held at 0; the width it comes back to is told at the reset.
    if (this.width !== was && this.parkedUntil === 0) this.onWidth(this.width);
    // Slow start's growth says nothing a person needs: a change is news once the account has refused.
    if (this.probing && why === 'recovering') return;
    if (was === this.width && why === 'recovering') return;
    this.emit({
      type: 'width.changed',
      backend: this.backend,
      width: this.width,
      was,
      ceiling: this.ceiling,
      why,
    });
  }
}
