import type { Redis } from 'ioredis';
import type { RunEventSink } from '../../machines/run-events.js';
import type { TurnWidth } from '../agents/agent-backend.js';
import {
  WIDTH_TUNING,
  afterRefusal,
  afterServed,
  parkNews,
  parkedError,
  RESET_MARGIN_MS,
  refusalReason,
  widthNews,
  type WidthTuning,
} from '../agents/width-rules.js';
import { waitInLine, type Waiter } from '../agents/width-line.js';
import { RaymondError } from '../errors.js';
import { stateFields, widthScripts, type SharedState, type WidthScripts } from './width-scripts.js';

/** How one worker's SharedWidth is set up. */
export interface SharedWidthOptions {
  /** The worker's connection (not its subscriber's). */
  redis: Redis;
  /** The account's keys begin so (WorkerWidths: the queue's prefix, the backend, a hash of the account). */
  key: string;
  backend: string;
  /** Most turns at once on the account: the run's `--max-parallel`. */
  ceiling: number;
  /** Names this worker's leases. */
  owner: string;
  tuning?: WidthTuning;
  /**
   * A running turn's place lapses this long after its worker last said it
   * runs: a killed worker's places come back after about this long.
   * @default 30000
   */
  leaseMs?: number;
  /**
   * A waiting turn asks again at least this often: a wake lost (a Redis
   * restarted, a subscriber reconnecting) costs this much.
   * @default 500
   */
  pollMs?: number;
}

/** Tries of a compare-and-set before a change is dropped: only a burst of writes by every worker at once loses one. */
const TRIES = 10;
/** How long a stopping worker waits to give its places back. */
const CLOSE_WAIT_MS = 2000;
/** An account idle this long forgets its width, and starts again with slow start. */
const IDLE_TTL_MS = 24 * 3600_000;

/**
 * An account's width shared by every queue worker through Redis, by the
 * rules of width-rules.ts, as AccountWidth is a run's: a refusal seen by one
 * worker narrows the width for all, and a usage limit parks all until the
 * reset. A running turn holds a lease, refreshed while it runs, so a killed
 * worker's turns stop counting once their leases lapse. Each worker waits
 * for a place in turn (its turns in order); a place given back or a change
 * of the width wakes the waiting workers (`wake`, through pub/sub).
 */
export class SharedWidth {
  readonly channel: string;
  private readonly scripts: WidthScripts;
  private readonly keys: [string, string];
  private readonly tuning: WidthTuning;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly leases = new Set<string>();
  private readonly waiters: Array<Waiter<string>> = [];
  private readonly pending = new Set<Promise<void>>();
  private leased = 0;
  private pumping = false;
  private again = false;
  private closed = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly refresher: ReturnType<typeof setInterval>;

  constructor(private readonly o: SharedWidthOptions) {
    this.scripts = widthScripts(o.redis);
    this.keys = [o.key, `${o.key}:leases`];
    this.channel = `${o.key}:wake`;
    this.tuning = o.tuning ?? WIDTH_TUNING;
    this.leaseMs = o.leaseMs ?? 30_000;
    this.pollMs = o.pollMs ?? 500;
    this.refresher = setInterval(() => this.refresh(), this.leaseMs / 3);
    this.refresher.unref();
  }

  /** The width as one job's turns use it: the changes their calls make are told to that job's run. */
  for(emit: RunEventSink): TurnWidth {
    return {
      acquire: (signal) => this.acquire(signal),
      release: (answered) => this.release(answered, emit),
      limited: (status, delayMs) => this.track(this.refused(status, delayMs, emit)),
      park: (resetsAt, message) =>
        this.track(this.parked(resetsAt + RESET_MARGIN_MS, message, emit)),
    };
  }

  /** Something changed (a place came free, the width moved, a park): the waiting turns ask again. */
  wake(): void {
    this.pump();
  }

  /** Waits for a place on the account; see TurnWidth. */
  acquire(signal: AbortSignal): Promise<void> {
    const waiting = waitInLine(this.waiters, signal, (lease: string) => this.leases.add(lease));
    this.pump();
    return waiting;
  }

  /** Gives back one of this worker's places, and grows the width by a turn served at full width. */
  async release(answered: boolean, emit: RunEventSink): Promise<void> {
    const lease = this.leases.values().next().value;
    if (lease === undefined) return;
    this.leases.delete(lease);
    try {
      let r = await this.read(lease);
      const full = r.running >= r.s.width;
      this.pump();
      for (let i = 0; answered && i < TRIES; i++) {
        const next = afterServed(r.s, full, this.o.ceiling, this.tuning);
        if (next === r.s) return;
        if (await this.write(r, stateFields(next), next.width > r.s.width)) {
          const news = widthNews(this.o.backend, this.o.ceiling, r.s.width, next, 'recovering');
          if (news) emit(news);
          return;
        }
        r = await this.read('');
      }
    } catch {
      // Redis is away: the lease lapses on its own, and one turn's growth is lost.
    }
  }

  /** Lets go of this worker's places and stops its timers (the worker stops). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.refresher);
    for (const w of this.waiters.splice(0)) w.fail(new RaymondError('ERR_AGENT_FAILED', 'stopped'));
    const leases = [...this.leases];
    this.leases.clear();
    // A Redis away would keep the worker from stopping: its leases lapse on their own then.
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.all([...this.pending, ...leases.map((l) => this.read(l).catch(() => undefined))]),
      new Promise((done) => (timer = setTimeout(done, CLOSE_WAIT_MS))),
    ]);
    clearTimeout(timer);
  }

  private async refused(status: 429 | 529, delayMs: number | null, emit: RunEventSink) {
    const { ceiling, backend } = this.o;
    for (let i = 0; i < TRIES; i++) {
      const r = await this.read('');
      const { now, running } = r;
      const next = afterRefusal(r.s, { now, running, delayMs, ceiling }, this.tuning);
      if (!(await this.write(r, stateFields(next), false))) continue;
      if (next.lastDecrease !== r.s.lastDecrease)
        emit(widthNews(backend, ceiling, r.s.width, next, refusalReason(status))!);
      return;
    }
  }

  private async parked(until: number, message: string, emit: RunEventSink) {
    for (let i = 0; i < TRIES; i++) {
      const r = await this.read('');
      if (until <= r.parkedUntil) return;
      if (!(await this.write(r, { parkedUntil: until, parkMessage: message }, true))) continue;
      emit(parkNews(this.o.backend, this.o.ceiling, r.s.width, until));
      // This worker's waiting turns are refused now, not at the next wake.
      this.pump();
      return;
    }
  }

  private read(lease: string): Promise<SharedState> {
    return this.scripts.read(this.keys, lease, this.start(), this.channel);
  }

  private write(r: SharedState, fields: Record<string, string | number>, wake: boolean) {
    const channel = wake ? this.channel : '';
    // A park (a weekly limit, say) outlives the idle time: the account is not forgotten before its reset.
    const parked = Math.max(r.parkedUntil, Number(fields.parkedUntil ?? 0));
    const ttl = IDLE_TTL_MS + Math.max(0, parked - r.now);
    return this.scripts.write(this.keys[0], r.v, channel, ttl, fields);
  }

  private start(): number {
    return Math.max(1, Math.min(this.o.ceiling, this.tuning.start));
  }

  /** A change told in the background: close waits for it; an error (Redis away) loses only it. */
  private track(p: Promise<void>): void {
    const done = p.catch(() => undefined).finally(() => this.pending.delete(done));
    this.pending.add(done);
  }

  /** Asks Redis for places for the waiting turns, first come first served, one ask at a time. */
  private pump(): void {
    if (this.closed) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pumping = true;
    void this.drain()
      .catch(() => this.later(1000))
      .finally(() => {
        this.pumping = false;
        if (!this.again) return;
        this.again = false;
        this.pump();
      });
  }

  private async drain(): Promise<void> {
    while (this.waiters.length > 0 && !this.closed) {
      const head = this.waiters[0]!;
      const lease = `${this.o.owner}:${++this.leased}`;
      const args = [lease, this.start(), this.leaseMs, this.o.ceiling, IDLE_TTL_MS];
      const [verdict, a, b] = await this.scripts.acquire(this.keys, ...args);
      if (verdict === 'parked') {
        for (const w of this.waiters.splice(0)) w.fail(parkedError(b ?? '', Number(a)));
        return;
      }
      if (verdict !== 'ok') return this.later(Number(a) > 0 ? Number(a) : this.pollMs);
      const at = this.waiters.indexOf(head);
      // Stopped while Redis gave it a place: the place goes back.
      if (at < 0) await this.read(lease);
      else this.waiters.splice(at, 1)[0]!.go(lease);
    }
  }

  private later(ms: number): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.pump(), Math.min(ms, this.pollMs));
    this.timer.unref();
  }

  /** Tells Redis this worker's turns still run. */
  private refresh(): void {
    if (this.leases.size === 0) return;
    this.track(this.scripts.refresh(this.keys[1], this.leaseMs, [...this.leases]));
  }
}
