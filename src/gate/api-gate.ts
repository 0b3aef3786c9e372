import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { endToEnd, forward, type Upstream } from './forward.js';
import {
  GATE_TUNING,
  OPEN_GATE,
  SKEW_MS,
  afterAnswer,
  afterRefusal,
  afterSend,
  sendAt,
  type GateState,
  type GateTuning,
} from './gate-rules.js';
import { isUsageLimit, retryAfterMs, toldRate } from './rate-headers.js';

/** What a gate knows, for the width that starts turns against it and for the run's news. */
export interface GateView {
  /** Model requests waiting for the account to take them. */
  waiting: number;
  /** Requests a second the account allows, once told or learned. */
  perSecond: number | undefined;
  /** Whether its headers told the rate. */
  told: boolean;
  /** Refusals the gate waited out instead of the agent CLI. */
  absorbed: number;
}

/**
 * An account's pace shared by gates in several processes (queue workers:
 * src/queue/shared-pace.ts): each send reserves its slot there, so the
 * gates together send at the account's rate.
 */
export interface SharedPace {
  /** Reserves the next send slot at `perSecond`, not before `holdMs` from now: the ms to wait for it. */
  slot(perSecond: number, holdMs: number): Promise<number>;
  /** Every gate holds its sends `ms` from now: a refusal's wait. */
  hold(ms: number): Promise<void>;
}

/** A model request of the Messages API (not `count_tokens`, not the CLI's other calls): the account's rate counts these. */
const MODEL_REQUEST = /\/v1\/messages(\?|$)/;

/**
 * A loopback HTTP gate in front of one account's Messages API: the agent
 * CLI's `ANTHROPIC_BASE_URL`. Every model request waits its turn at the
 * account's rate (gate-rules.ts), so requests reach the API spaced as it
 * takes them instead of in bursts that it refuses; a 429 for the rate is
 * held and sent again after its `retry-after` (at the head of the line)
 * rather than handed to the CLI, whose own backoff would send it again
 * beside the next ones. A usage limit, a long wait, and every other answer
 * (529 included: Claude Code's fallback reads it) go to the CLI as they
 * came. It adds no credential: each request carries the CLI's own.
 */
export class ApiGate {
  private s: GateState = OPEN_GATE;
  private readonly line: Array<{ go: () => void; front: boolean }> = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly listeners = new Set<() => void>();
  private absorbed = 0;
  /**
   * Until an answer's headers came, one request goes at a time: they may
   * tell the rate before a burst finds it (the real API's always do).
   */
  private heard = false;
  private probing = false;
  /** A shared pace's sender is waiting for its slot. */
  private reserving = false;

  private constructor(
    private readonly upstream: string,
    private readonly server: Server,
    private readonly tuning: GateTuning,
    private readonly now: () => number,
    private shared: SharedPace | undefined,
  ) {}

  /**
   * A gate to `upstream` (a base URL, path kept), listening on a free
   * loopback port; with `shared`, its sends keep to a pace shared with
   * other processes' gates of the account.
   */
  static async open(
    upstream: string,
    tuning: GateTuning = GATE_TUNING,
    now: () => number = Date.now,
    shared?: SharedPace,
  ): Promise<ApiGate> {
    let gate: ApiGate | undefined;
    const server = createServer((req, res) => void gate!.handle(req, res));
    gate = new ApiGate(upstream.replace(/\/+$/, ''), server, tuning, now, shared);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    // The process's runs use it while they run; it keeps no process alive.
    server.unref();
    return gate;
  }

  /** The base URL the agent CLI is given. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get view(): GateView {
    const { perSecond, told } = this.s;
    return { waiting: this.line.length, perSecond, told, absorbed: this.absorbed };
  }

  /** Calls `listener` whenever the line or the rate changes; returns its removal. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    clearTimeout(this.timer);
    this.server.close();
    this.server.closeAllConnections();
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const abort = new AbortController();
    // The CLI gave up on the request (its turn stopped): it leaves the line, and its upstream call ends.
    res.on('close', () => abort.abort());
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const request = {
        method: req.method ?? 'GET',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      const url = this.upstream + (req.url ?? '/');
      const gated = request.method === 'POST' && MODEL_REQUEST.test(req.url ?? '');
      const answer = gated
        ? await this.gated(url, request, abort.signal)
        : await forward(url, request, abort.signal);
      res.writeHead(answer.status, endToEnd(answer.headers));
      await pipeline(answer.body, res);
    } catch (err) {
      if (abort.signal.aborted) return;
      if (!res.headersSent)
        res.writeHead(502, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            type: 'error',
            error: { type: 'api_error', message: `raymond's gate: ${(err as Error).message}` },
          }),
        );
      else res.destroy();
    }
  }

  /** A model request: sent in its turn, and sent again while the account refuses it for its rate, within the bounds. */
  private async gated(
    url: string,
    request: Parameters<typeof forward>[1],
    signal: AbortSignal,
  ): Promise<Upstream> {
    const since = this.now();
    let front = false;
    for (;;) {
      await this.turn(front, signal);
      const answer = await forward(url, request, signal).catch((err: unknown) => {
        this.hear();
        throw err;
      });
      const now = this.now();
      const waiting = this.line.length > 0;
      this.s = afterAnswer(this.s, toldRate(answer.headers), waiting, now, this.tuning);
      const wait = this.heldFor(answer, now - since);
      if (wait !== undefined) {
        answer.body.resume();
        this.absorbed++;
        this.s = afterRefusal(this.s, wait, now, this.tuning);
        this.shared?.hold(wait).catch(() => undefined);
        front = true;
      }
      this.hear();
      this.changed();
      if (wait === undefined) return answer;
    }
  }

  /**
   * How long to hold a request its answer refused for the account's rate,
   * `held` ms after it first came; undefined: the answer goes to the CLI
   * (not a 429, a usage limit, a long wait, or held too long already).
   */
  private heldFor(answer: Upstream, held: number): number | undefined {
    if (answer.status !== 429 || isUsageLimit(answer.headers)) return undefined;
    const wait = retryAfterMs(answer.headers, this.now()) ?? 1000;
    if (wait > this.tuning.maxWaitMs || held + wait > this.tuning.maxHoldMs) return undefined;
    return wait;
  }

  /** An answer (or a failure) came: the line no longer waits for the first one. */
  private hear(): void {
    if (this.heard) return;
    this.heard = true;
    this.pump();
  }

  /** Waits for the request's turn: first in line, once the account takes one. */
  private turn(front: boolean, signal: AbortSignal): Promise<void> {
    const gone = () => new Error('the agent CLI gave up on the request');
    if (signal.aborted) return Promise.reject(gone());
    return new Promise((resolve, reject) => {
      const place = {
        front,
        go: () => {
          signal.removeEventListener('abort', leave);
          resolve();
        },
      };
      const leave = () => {
        const i = this.line.indexOf(place);
        if (i >= 0) this.line.splice(i, 1);
        reject(gone());
        this.changed();
      };
      signal.addEventListener('abort', leave, { once: true });
      // A request sent again goes ahead of those that have not been sent yet.
      const behind = front ? this.line.findIndex((p) => !p.front) : -1;
      this.line.splice(behind >= 0 ? behind : this.line.length, 0, place);
      this.pump();
      this.changed();
    });
  }

  /** Sends every request whose turn came; else wakes when the next one's does. */
  private pump(): void {
    if (this.shared && this.s.perSecond !== undefined) return void this.pumpShared();
    let sent = false;
    for (;;) {
      if (this.line.length === 0 || (!this.heard && this.probing)) break;
      const now = this.now();
      const at = sendAt(this.s, now);
      if (at > now) {
        if (!this.timer)
          this.timer = setTimeout(() => {
            this.timer = undefined;
            this.pump();
          }, at - now);
        break;
      }
      this.s = afterSend(this.s, now);
      this.probing = true;
      this.line.shift()!.go();
      sent = true;
    }
    if (sent) this.changed();
  }

  /**
   * Sends the line in the slots the shared pace gives, one reservation at a
   * time. Redis away: the gate goes on with its own bucket alone.
   */
  private async pumpShared(): Promise<void> {
    if (this.reserving) return;
    this.reserving = true;
    try {
      while (this.line.length > 0 && this.shared && this.s.perSecond !== undefined) {
        const hold = this.s.holdUntil - this.now();
        const waitMs = await this.shared.slot(this.s.perSecond, hold);
        if (waitMs > 0) await new Promise((ok) => setTimeout(ok, waitMs + SKEW_MS));
        // A request that left the line meanwhile leaves its slot unused.
        const next = this.line.shift();
        if (!next) break;
        this.s = afterSend(this.s, this.now());
        next.go();
        this.changed();
      }
    } catch {
      this.shared = undefined;
    } finally {
      this.reserving = false;
    }
    if (!this.shared) this.pump();
  }
}
