import type { Redis } from 'ioredis';
import { RaymondError } from '../errors.js';
import { secretCheck } from './job-signing.js';
import type { QueueTarget } from './queue-url.js';
import { KEY_PREFIX } from './step-job.js';
import { alive, listWorkers } from './worker-registry.js';

/**
 * Coordinators publish the MAC of a fixed text under their secret here
 * while they run: a worker compares it with its own before it takes any job,
 * and one started with another secret stops, saying so, instead of refusing
 * (and failing) every job it is given.
 */
export const CHECK_KEY = `${KEY_PREFIX}:secret-check`;
/** The published check lapses this long after the last coordinator stops, so that the secret can be changed. */
export const CHECK_TTL_SECONDS = 30;

/** Whether the check published in Redis matches this secret; absent: no coordinator has said. */
export async function secretVerdict(
  redis: Redis,
  secret: string,
): Promise<'same' | 'other' | 'absent'> {
  const published = await redis.get(CHECK_KEY);
  if (published === null) return 'absent';
  return published === secretCheck(secret) ? 'same' : 'other';
}

/** The line a worker stops with when the runs use another secret. */
export function wrongSecret(target: QueueTarget): RaymondError {
  return new RaymondError(
    'ERR_QUEUE_SECRET',
    `the runs queued at ${target.shown} are signed with another secret than this worker's (--queue-secret-file or RAYMOND_QUEUE_SECRET): stopping without taking a job (a run counts until 30 s after it stops)`,
  );
}

/**
 * A coordinator's check before it queues anything: refused with one line if
 * another run uses another secret right now, or if there are live workers
 * and none has this secret (a typo here would otherwise stop them all).
 * Then it publishes its own.
 */
export async function publishSecretCheck(
  redis: Redis,
  secret: string,
  target: QueueTarget,
): Promise<void> {
  const mine = secretCheck(secret);
  const published = await redis.get(CHECK_KEY);
  if (published !== null && published !== mine) {
    throw new RaymondError(
      'ERR_QUEUE_SECRET',
      `another run at ${target.shown} signs its steps with another queue secret than this run's (--queue-secret-file or RAYMOND_QUEUE_SECRET); every run and worker of a queue needs the same one`,
    );
  }
  const live = (await listWorkers(redis)).filter((w) => alive(w) && w.check !== undefined);
  if (published === null && live.length > 0 && !live.some((w) => w.check === mine)) {
    throw new RaymondError(
      'ERR_QUEUE_SECRET',
      `none of the ${live.length} live workers at ${target.shown} has this run's queue secret (--queue-secret-file or RAYMOND_QUEUE_SECRET); every run and worker of a queue needs the same one`,
    );
  }
  await redis.set(CHECK_KEY, mine, 'EX', CHECK_TTL_SECONDS);
}

/** Keeps a coordinator's published check alive while it runs. */
export async function refreshSecretCheck(redis: Redis, secret: string): Promise<void> {
  await redis.set(CHECK_KEY, secretCheck(secret), 'EX', CHECK_TTL_SECONDS);
}
