import type { Redis } from 'ioredis';
import { accountOf } from '../agents/account-key.js';
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
