import type { Redis } from 'ioredis';
import type { RunEventSink } from '../../machines/run-events.js';
import { accountOf } from '../agents/account-key.js';
import { paceTeller } from '../agents/width-rules.js';
import { ApiGates } from '../gate/api-gates.js';
import { GATE_TUNING } from '../gate/gate-rules.js';
import { sharedPace } from './shared-pace.js';
import { backendOf } from '../agents/registry/registry.js';
import type { QueueTarget } from './queue-url.js';
import { closeRedis, openRedis } from './redis-link.js';
import { SharedWidth, type SharedWidthOptions } from './shared-width.js';
import { KEY_PREFIX } from './step-job.js';

/** Where an account's shared width lives in Redis (`raymond:width:claude:<hash>`: account-key.ts). */
export function accountKey(backend: string, env: Readonly<Record<string, string | undefined>>) {
  return `${KEY_PREFIX}:width:${accountOf(backend, env)}`;
}

/**
 * One worker's shared widths, one per account (and ceiling), made when a
 * job first needs one and kept for the worker's life: a width forgotten
 * between jobs would find the limit again. One subscriber connection
 * carries every width's wakes.
 */
export class WorkerWidths {
  private readonly widths = new Map<string, SharedWidth>();
  /** Each account's last run to use its gate here: told the gate's rate. */
  private readonly tellers = new Map<string, { ceiling: number; emit: RunEventSink }>();
  /** Each worker's gate of an account keeps to one pace with every other worker's (shared-pace.ts). */
  private readonly gates = new ApiGates(GATE_TUNING, (account) =>
    sharedPace(this.redis, `${KEY_PREFIX}:width:${account}`),
  );
  private sub: Redis | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly target: QueueTarget,
    /** The worker's name: it names the worker's leases. */
    private readonly owner: string,
    private readonly tuning: Pick<SharedWidthOptions, 'tuning' | 'leaseMs' | 'pollMs'> = {},
  ) {}

  /** The width of `backend`'s account as `env` names it, at most `ceiling` wide. */
  of(
    backend: string,
    env: Readonly<Record<string, string | undefined>>,
    ceiling: number,
  ): SharedWidth {
    const key = accountKey(backend, { ...process.env, ...env });
    const id = `${key} ${ceiling}`;
    let width = this.widths.get(id);
    if (width) return width;
    width = new SharedWidth({
      redis: this.redis,
      key,
      backend,
      ceiling,
      owner: `${this.owner}:${process.pid}:${Date.now().toString(36)}`,
      ...this.tuning,
    });
    this.widths.set(id, width);
    this.subscriber()
      .subscribe(width.channel)
      .catch(() => undefined);
    return width;
  }

  /**
   * The variables a turn of `backend`'s account runs with on this worker:
   * the address of the worker's request gate for the account (api-gate.ts),
   * when the backend has one. The workers' gates of an account send at one
   * pace, kept in Redis, and a refusal one of them holds holds them all.
   */
  gateEnv(
    backend: string,
    env: Readonly<Record<string, string | undefined>>,
    width: { ceiling: number; emit: RunEventSink },
  ): (() => Promise<Record<string, string>>) | undefined {
    const all = { ...process.env, ...env };
    const api = backendOf({ name: backend }).api?.(all);
    if (!api) return undefined;
    const account = accountOf(backend, all);
    // The gate's rate is news for the run whose turn went through it last.
    this.tellers.set(account, width);
    return () =>
      this.gates.env(account, api, env, (gate) => {
        const tell = paceTeller(backend, (e) => this.tellers.get(account)?.emit(e));
        gate.onChange(() => {
          const c = this.tellers.get(account)?.ceiling ?? 0;
          tell(gate.view, c, c);
        });
      });
  }

  /** Gives back this worker's places and closes the subscriber. */
  async close(): Promise<void> {
    await Promise.all([...this.widths.values()].map((w) => w.close()));
    this.widths.clear();
    if (this.sub) await closeRedis(this.sub);
  }

  private subscriber(): Redis {
    if (this.sub) return this.sub;
    const sub = openRedis(this.target, () => undefined, `raymond-worker-${this.owner}-width`);
    sub.on('message', (channel: string) => {
      for (const w of this.widths.values()) if (w.channel === channel) w.wake();
    });
    return (this.sub = sub);
  }
}
