import type { Redis } from 'ioredis';
import { KEY_PREFIX } from './step-job.js';
import { workerBeatSchema, type WorkerBeat } from './queue-schemas.js';

export type { WorkerBeat } from './queue-schemas.js';

/** How often a worker beats, and how long without a beat it is counted gone. */
export const BEAT_MS = 1000;
export const GONE_MS = 5000;
/** Workers gone this long are dropped from the list. */
const FORGET_MS = 24 * 3600 * 1000;
const KEY = `${KEY_PREFIX}:workers`;

/** Records a worker's heartbeat. */
export async function beat(redis: Redis, b: WorkerBeat): Promise<void> {
  await redis.hset(KEY, b.name, JSON.stringify(b));
}

/** Removes a worker that stops cleanly. */
export async function leave(redis: Redis, name: string): Promise<void> {
  await redis.hdel(KEY, name);
}

/** One worker's last heartbeat, if it has beaten. */
export async function workerBeat(redis: Redis, name: string): Promise<WorkerBeat | undefined> {
  const raw = await redis.hget(KEY, name);
  return raw ? readBeat(raw) : undefined;
}

/** Whether a heartbeat is recent enough for its worker to count as alive. */
export function alive(b: WorkerBeat, now = Date.now()): boolean {
  return now - b.beatAt < GONE_MS;
}

/** Every worker that beat within a day, by name; older entries are dropped. */
export async function listWorkers(redis: Redis, now = Date.now()): Promise<WorkerBeat[]> {
  const all = Object.values(await redis.hgetall(KEY)).flatMap((raw) => readBeat(raw) ?? []);
  const stale = all.filter((b) => now - b.beatAt > FORGET_MS).map((b) => b.name);
  if (stale.length > 0) await redis.hdel(KEY, ...stale);
  return all
    .filter((b) => now - b.beatAt <= FORGET_MS)
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * A stored heartbeat, or undefined (with a warning naming the key) for one
 * that is not JSON or not a heartbeat: another version's worker, or a
 * hand-written key, counts as no worker rather than stopping the run.
 */
export function readBeat(raw: string): WorkerBeat | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    process.emitWarning(
      `raymond: ignoring a worker heartbeat in Redis ${KEY} that is not JSON: ${raw.slice(0, 80)}`,
    );
    return undefined;
  }
  if (workerBeatSchema.check(value)) return value;
  process.emitWarning(
    `raymond: ignoring a worker heartbeat in Redis ${KEY}: ${workerBeatSchema.problem(value, 'the heartbeat')}`,
  );
  return undefined;
}
