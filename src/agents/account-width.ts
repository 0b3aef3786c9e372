import type { RunEventSink } from '../../machines/run-events.js';
import type { WidthReason } from '../../machines/types.js';
import type { TurnWidth } from './agent-backend.js';
import type { GateView } from '../gate/api-gate.js';
import { waitInLine, type Waiter } from './width-line.js';
import {
  WIDTH_TUNING,
  afterRefusal,
  afterServed,
  freshWidth,
  paceTeller,
  parkNews,
  parkedError,
  RESET_MARGIN_MS,
  refusalReason,
  widthNews,
  type WidthState,
  type WidthTuning,
} from './width-rules.js';

/** What a width reads of its account's request gate. */
export interface GateSignals {
  readonly view: GateView;
  /** Calls `listener` on each change of the gate's line or rate. */
  onChange(listener: () => void): unknown;
}

/**
 * Seconds of the account's rate that may wait at its gate before no more
 * turns start: turns of several requests each, started at the rate, ask
 * faster than the account answers, and the line would grow without end.
 */
export const GATE_BACKLOG_S = 5;

/**
 * How many turns a run starts at once against one account of one backend:
 * slow start, then additive increase and multiplicative decrease (AIMD) on
 * the account's refusals (429 rate limits and 529 overloads), never above
 * the ceiling (`--max-parallel`, the machine's turn slots). Turns already
 * running are never stopped: the account gets fewer new ones. A usage limit
 * with a known reset parks the account: no turn starts before the reset.
 */
export class AccountWidth implements TurnWidth {
  private s: WidthState;
  private running = 0;
  private parkedUntil = 0;
  private parkMessage = '';
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly waiters: Array<Waiter<void>> = [];
  /** The account's request gate, once open: no turn starts while its line is long. */
  private gate: GateSignals | undefined;
  /** When the last turn started (epoch ms): paced turns start one request's spacing apart. */
  private lastStart = Number.NEGATIVE_INFINITY;

  constructor(
    readonly backend: string,
    /** Raised by `raise` (a width shared by runs: AccountWidths), never lowered. */
    public ceiling: number,
    private readonly emit: RunEventSink,
    private readonly tuning: WidthTuning = WIDTH_TUNING,
    private readonly now: () => number = Date.now,
    /** Told every width, slow start's included (0 while parked): the run grants no more markdown steps than that. */
    private readonly onWidth: (width: number) => void = () => {},
  ) {
    this.s = freshWidth(ceiling, tuning);
    onWidth(this.s.width);
  }

  /** Turns that may run at once now. */
  get current(): number {
    return this.s.width;
  }

  /** Lets the width grow up to `ceiling` (another run with a higher one shares it now). */
  raise(ceiling: number): void {
    this.ceiling = Math.max(this.ceiling, ceiling);
  }

  /**
   * Waits for a turn's place: under the width and past any hold. Aborted:
   * throws ERR_AGENT_FAILED `stopped`; parked: throws ERR_USAGE_LIMIT.
   */
  async acquire(signal: AbortSignal): Promise<void> {
    if (this.parkedUntil !== 0) {
      if (this.now() < this.parkedUntil) throw parkedError(this.parkMessage, this.parkedUntil);
      // The reset came while the run went on (its scripts, say): the run may grant its markdown steps again.
      this.parkedUntil = 0;
      this.onWidth(this.s.width);
    }
    if (this.waiters.length === 0 && this.open()) return this.started();
    const waiting = waitInLine(this.waiters, signal, () => this.started());
    this.pump();
    await waiting;
  }

  /** A turn ended; `answered` when the account served it (it may have been refused on the way). */
  release(answered: boolean): void {
    const full = this.running >= this.s.width;
    this.running = Math.max(0, this.running - 1);
    if (answered) this.set(afterServed(this.s, full, this.ceiling, this.tuning), 'recovering');
    this.pump();
  }

  /** The account refused a request for its rate (429) or its load (529); the turn retries after `delayMs`. */
  limited(status: 429 | 529, delayMs: number | null): void {
    const { ceiling, running } = this;
    const next = afterRefusal(this.s, { now: this.now(), running, delayMs, ceiling }, this.tuning);
    if (next.lastDecrease === this.s.lastDecrease) this.s = next;
    else this.set(next, refusalReason(status));
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
    this.emit(parkNews(this.backend, this.ceiling, this.s.width, until));
    for (const w of this.waiters.splice(0)) w.fail(parkedError(this.parkMessage, until));
  }

  /**
   * Starts turns against the account's request gate: while more of its
   * model requests wait there than the account takes in GATE_BACKLOG_S,
   * no turn starts (its first request would only wait longer, holding a
   * process), and each change of the rate the gate sends at is news.
   */
  attach(gate: GateSignals): void {
    this.gate = gate;
    const tell = paceTeller(this.backend, this.emit);
    gate.onChange(() => {
      tell(gate.view, this.s.width, this.ceiling);
      this.pump();
    });
  }

  /** Stops the timer (the run ended); waiting turns are the run's to stop. */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private open(): boolean {
    return this.running < this.s.width && this.now() >= this.notBefore() && !this.backlogged();
  }

  /** More requests wait at the gate than the account takes in GATE_BACKLOG_S. */
  private backlogged(): boolean {
    const view = this.gate?.view;
    if (view?.perSecond === undefined) return false;
    return view.waiting >= Math.max(1, Math.ceil(view.perSecond * GATE_BACKLOG_S));
  }

  /** Starts every waiter that fits; else wakes when the hold ends. */
  /** A turn took its place. */
  private started(): void {
    this.running++;
    this.lastStart = this.now();
  }

  /**
   * When the next turn may start: past a refusal's hold, and once the gate
   * knows the account's rate, no sooner after the last start than one
   * request's spacing. A turn reaches its first request seconds after it
   * starts, so starts that wait for the gate's line to drain come too late
   * to keep it fed; starts at its rate arrive as it sends.
   */
  private notBefore(): number {
    const perSecond = this.gate?.view.perSecond;
    const paced = perSecond === undefined ? 0 : this.lastStart + 1000 / perSecond;
    return Math.max(this.s.holdUntil, paced);
  }

  /** Starts every waiter that fits; else wakes when the hold or the pace's gap ends. */
  private pump(): void {
    while (this.waiters.length > 0 && this.open()) this.waiters.shift()!.go();
    const wait = this.notBefore() - this.now();
    if (this.waiters.length === 0 || wait <= 0 || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, wait);
  }

  /** Takes the width's next state, telling the run its width and the news of the change. */
  private set(next: WidthState, why: WidthReason): void {
    const was = this.s.width;
    this.s = next;
    // While parked the run is held at 0; the width it comes back to is told at the reset.
    if (next.width !== was && this.parkedUntil === 0) this.onWidth(next.width);
    const news = widthNews(this.backend, this.ceiling, was, next, why);
    if (news) this.emit(news);
  }
}
