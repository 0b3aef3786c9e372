import type { Redis } from 'ioredis';
import { KEY_PREFIX } from './step-job.js';

/** What a worker says of itself with each heartbeat. */
export interface WorkerBeat {
  name: string;
  host: string;
  pid: number;
  concurrency: number;
  /** Jobs it runs now, and how many it finished and failed since it started. */
  active: number;
  done: number;
  failed: number;
  startedAt: number;
  /** When it last said so (epoch ms). */
  beatAt: number;
  /** The MAC of a fixed text under its secret (job-signing.ts `secretCheck`): whether a run shares its secret. */
  check?: string;
}

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
  return raw ? (JSON.parse(raw) as WorkerBeat) : undefined;
}

/** Whether a heartbeat is recent enough for its worker to count as alive. */
export function alive(b: WorkerBeat, now = Date.now()): boolean {
  return now - b.beatAt < GONE_MS;
}

/** Every worker that beat within a day, by name; older entries are dropped. */
export async function listWorkers(redis: Redis, now = Date.now()): Promise<WorkerBeat[]> {
  const all = Object.values(await redis.hgetall(KEY)).map((raw) => JSON.parse(raw) as WorkerBeat);
  const stale = all.filter((b) => now - b.beatAt > FORGET_MS).map((b) => b.name);
  if (stale.length > 0) await redis.hdel(KEY, ...stale);
  return all.filter((b) => now - b.beatAt <= FORGET_MS).sort((a, b) => a.name.localeCompare(b.name));
}
