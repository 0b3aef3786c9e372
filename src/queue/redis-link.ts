import { Redis } from 'ioredis';
import { RaymondError, errorMessage } from '../errors.js';
import type { QueueTarget } from './queue-url.js';

/** What a process hears about its Redis connection: one line when it is lost, one when it is back. */
export type LinkNotice = (text: string, kind: 'lost' | 'back') => void;

/**
 * A Redis connection that says once when Redis cannot be reached and once
 * when it is back, instead of an error per retry: the run waits through an
 * outage (ioredis reconnects, BullMQ's commands wait) and goes on.
 */
export function openRedis(target: QueueTarget, notice: LinkNotice, name: string): Redis {
  const redis = new Redis({ ...target.options, connectionName: name, lazyConnect: false });
  let down = false;
  let why = '';
  redis.on('error', (err: unknown) => {
    why = ` (${errorMessage(err)})`;
  });
  // 'reconnecting', not 'error': a Redis restarted at once drops the connection with no error, and a quit does not reconnect.
  redis.on('reconnecting', () => {
    if (down) return;
    down = true;
    notice(`queue: cannot reach Redis at ${target.shown}${why}; waiting for it`, 'lost');
    why = '';
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    notice(`queue: Redis at ${target.shown} is back`, 'back');
  });
  return redis;
}

/** Closes connections without waiting on a Redis that may be gone. */
export async function closeRedis(...links: Redis[]): Promise<void> {
  await Promise.all(
    links.map(async (r) => {
      if (r.status === 'ready') await r.quit().catch(() => r.disconnect());
      else r.disconnect();
    }),
  );
}

/** Errors no reconnection cures: the URL's user or password is wrong (or missing), or the server's TLS certificate is not trusted. */
const REFUSED = /WRONGPASS|NOAUTH|invalid username-password|invalid password|certificate/i;

/**
 * Waits until the connection is ready, through outages (said once by
 * openRedis); a Redis that refuses the URL's credentials is one line, not
 * an endless wait.
 */
export function whenReady(redis: Redis, target: QueueTarget): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = () => {
      redis.off('ready', ready);
      redis.off('error', failed);
    };
    const ready = () => {
      done();
      resolve();
    };
    const failed = (err: unknown) => {
      if (!REFUSED.test(errorMessage(err))) return;
      done();
      redis.disconnect();
      const why = errorMessage(err);
      reject(new RaymondError('ERR_QUEUE', /certificate/i.test(why) ? `cannot trust Redis at ${target.shown}: ${why} (a certificate of your own CA: name the CA's file in NODE_EXTRA_CA_CERTS)` : `Redis at ${target.shown} refused the connection: ${why} (check the user and password in the URL)`));
    };
    redis.on('ready', ready);
    redis.on('error', failed);
  });
}
