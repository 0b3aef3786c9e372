import type { Redis } from 'ioredis';
import type { SignedJob } from './job-signing.js';
import { KEY_PREFIX } from './step-job.js';

/**
 * Each job a coordinator queues carries a fresh nonce, signed with the job.
 * Before a worker runs it, it claims `raymond:claim:<id>:<nonce>` in Redis
 * with SET NX: `running <worker>` while it runs (renewed with each heartbeat,
 * lapsing as the job's lock does, so that a dead worker's step can run
 * elsewhere), then `done`. A copy of the job put back in the queue finds
 * `done` and runs nothing. The key names only what the coordinator signed:
 * without the secret, nobody can make a claim that fits another job.
 */
export const claimKey = (id: string, nonce: string) => `${KEY_PREFIX}:claim:${id}:${nonce}`;

/** How long a finished job's claim stays: well past the expiry any copy of the job carries. */
const DONE_MS = 24 * 3600 * 1000;

/** What claiming a job found. */
export type Claim =
  /** This worker holds it now and runs it. */
  | { kind: 'mine' }
  /** Another worker is running it: try again once its claim would lapse. */
  | { kind: 'running'; by: string; retryInMs: number }
  /** It ran already: a copy put back in the queue. */
  | { kind: 'done' };

/** Claims a job for `worker` for `ttlMs`, atomically: at most one worker holds a (job, nonce) at a time, and none after it is done. */
export async function claimJob(
  redis: Redis,
  id: string,
  nonce: string,
  worker: string,
  ttlMs: number,
): Promise<Claim> {
  const key = claimKey(id, nonce);
  if ((await redis.set(key, `running ${worker}`, 'PX', ttlMs, 'NX')) === 'OK')
    return { kind: 'mine' };
  const [value, left] = await Promise.all([redis.get(key), redis.pttl(key)]);
  if (value === 'done') return { kind: 'done' };
  // Lapsed between the two calls, or held by another worker: either way, look again later.
  return {
    kind: 'running',
    by: value?.slice('running '.length) ?? '?',
    retryInMs: Math.max(50, left),
  };
}

/** Extends a claim only while it is still this worker's running one: a heartbeat that comes after the job finished leaves `done` alone. */
const RENEW =
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end";

/** Keeps a running job's claim alive (with each heartbeat). */
export async function renewClaim(
  redis: Redis,
  id: string,
  nonce: string,
  worker: string,
  ttlMs: number,
): Promise<void> {
  await redis.eval(RENEW, 1, claimKey(id, nonce), `running ${worker}`, String(ttlMs));
}

/** Where a finished job's signed result is kept for a copy of the job to hand back. */
const resultKey = (id: string, nonce: string) => `${claimKey(id, nonce)}:result`;

/**
 * Marks a job as run: no copy of it runs from now on. With its `result`
 * (kept `keepMs`, at most as long as the claim), a copy hands that result
 * back instead: the job's lock may have lapsed while it ran (a worker
 * slowed down), and then the queue takes only the copy's answer.
 */
export async function finishClaim(
  redis: Redis,
  id: string,
  nonce: string,
  result?: SignedJob,
  keepMs: number = DONE_MS,
): Promise<void> {
  const done = redis.multi().set(claimKey(id, nonce), 'done', 'PX', DONE_MS);
  if (result)
    done.set(resultKey(id, nonce), JSON.stringify(result), 'PX', Math.min(keepMs, DONE_MS));
  await done.exec();
}

/** The signed result a finished job left for its copies, if it left one (and it is still kept). */
export async function finishedResult(
  redis: Redis,
  id: string,
  nonce: string,
): Promise<SignedJob | undefined> {
  const text = await redis.get(resultKey(id, nonce));
  return text ? (JSON.parse(text) as SignedJob) : undefined;
}

/** Redis's clock in epoch ms: the coordinator and the workers read the same one, whatever their own clocks say. */
export async function redisNow(redis: Redis): Promise<number> {
  const [s, us] = await redis.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}
