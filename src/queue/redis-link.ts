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
 * an endless wait. With `deadlineMs` (a one-shot command, not a run or a
 * worker that waits through outages), a Redis that cannot be reached is one
 * line too: at its first connection error, or when the deadline passes.
 */
export function whenReady(redis: Redis, target: QueueTarget, deadlineMs?: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', ready);
      redis.off('error', failed);
    };
    const give = (err: RaymondError) => {
      done();
      redis.disconnect();
      reject(err);
    };
    const ready = () => {
      done();
      resolve();
    };
    const failed = (err: unknown) => {
      const why = errorMessage(err);
      if (REFUSED.test(why)) {
        give(
          new RaymondError(
            'ERR_QUEUE',
            /certificate/i.test(why)
              ? `cannot trust Redis at ${target.shown}: ${why} (a certificate of your own CA: name the CA's file in NODE_EXTRA_CA_CERTS)`
              : `Redis at ${target.shown} refused the connection: ${why} (check the user and password in the URL)`,
          ),
        );
      } else if (deadlineMs !== undefined) {
        give(new RaymondError('ERR_UNREACHABLE', `cannot reach Redis at ${target.shown}: ${why}`));
      }
    };
    const timer =
      deadlineMs === undefined
        ? undefined
        : setTimeout(
            () =>
              give(
                new RaymondError(
                  'ERR_UNREACHABLE',
                  `cannot reach Redis at ${target.shown}: no answer within ${Math.round(deadlineMs / 1000)} s`,
                ),
              ),
            deadlineMs,
          );
    redis.on('ready', ready);
    redis.on('error', failed);
  });
}
