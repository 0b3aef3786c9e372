import { randomUUID } from 'node:crypto';
import type { Job, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { RaymondError } from '../errors.js';
import { BlobStore } from './blob-store.js';
import { redisNow } from './job-claims.js';
import {
  failure,
  forgedResult,
  json,
  lookUpJob,
  openJob,
  openResult,
  type JobLookup,
} from './job-results.js';
import { signJob, verifyJob } from './job-signing.js';
import { closeLanes, openLanes, type Lane } from './queue-lanes.js';
import { signedProgress } from './queue-schemas.js';
import type { QueueTarget } from './queue-url.js';
import { closeRedis, openRedis, whenReady, type LinkNotice } from './redis-link.js';
import { publishSecretCheck, refreshSecretCheck } from './secret-check.js';
import {
  JOB_VALID_MS,
  KEY_PREFIX,
  cancelKey,
  queueOf,
  endedKey,
  type JobRequest,
  type StepJob,
  type StepJobResult,
} from './step-job.js';

/** How often jobs in flight are looked up, besides the events that announce them: a missed event, or a job Redis lost, is found this way. */
const POLL_MS = 1000;
/** How long finished jobs stay in Redis: long enough for a coordinator killed meanwhile to come back and take their results. */
const KEEP_SECONDS = 7 * 24 * 3600;
/** How often the coordinator's secret check is published again while it runs. */
const CHECK_REFRESH_MS = 10_000;

interface Pending {
  job: JobRequest;
  prepare: () => Promise<void>;
  settle: (r: StepJobResult | RaymondError) => void;
  onProgress: (data: unknown) => void;
  /** The nonces the job was queued with (by this process, or by the one before a resume): the results that answer it. */
  nonces: Set<string>;
  /** When (this machine's clock) the job's expiry is pushed back next, while it waits. */
  refreshAt: number;
}

/**
 * The coordinator's side of the queue: adds signed step jobs (one job id per
 * step and turn, so a job is added once however often it is asked for, and
 * a fresh nonce each time it is added), and hands back each job's result
 * exactly once, from the event that announces it or, if that was missed,
 * from the job itself. A result counts only if a worker signed it with the
 * secret for this job and nonce.
 */
export class StepQueue {
  readonly blobs: BlobStore;
  private readonly pending = new Map<string, Pending>();
  private readonly timer: NodeJS.Timeout;
  private polling = false;
  private checkedAt = Date.now();

  private constructor(
    private readonly redis: Redis,
    private readonly lanes: ReadonlyMap<string, Lane>,
    private readonly secret: string,
  ) {
    this.blobs = new BlobStore(redis, KEY_PREFIX);
    for (const { events } of lanes.values()) this.listen(events);
    this.timer = setInterval(() => void this.poll(), POLL_MS);
    this.timer.unref();
  }

  /** Settles jobs from the events that announce their ends, and passes their progress on. */
  private listen(events: QueueEvents): void {
    const secret = this.secret;
    events.on('completed', ({ jobId, returnvalue }) => {
      const p = this.pending.get(jobId);
      if (!p) return;
      const r = openResult(secret, returnvalue, jobId);
      if (r.kind === 'forged') this.finish(jobId, forgedResult(p.job.where));
      // Signed for a nonce this process did not queue (one from before a resume): the poll checks it against the job's data.
      else if (p.nonces.has(r.nonce)) this.finish(jobId, r.result);
    });
    events.on('failed', ({ jobId, failedReason }) => {
      const p = this.pending.get(jobId);
      if (p) this.finish(jobId, failure(failedReason, p.job.where));
    });
    events.on('progress', ({ jobId, data }) => {
      const p = this.pending.get(jobId);
      const signed = p ? verifyJob(secret, json(data), signedProgress) : undefined;
      if (p && signed && signed.id === jobId && p.nonces.has(signed.nonce))
        p.onProgress({ events: signed.events, spentUsd: signed.spentUsd });
    });
  }

  /**
   * Connects (waiting for Redis if it is down, and saying so once through
   * `notice`), and publishes the secret's check for the workers: a run whose
   * secret differs from the live workers' is one line here.
   */
  static async open(target: QueueTarget, secret: string, notice: LinkNotice): Promise<StepQueue> {
    const redis = openRedis(target, notice, 'raymond-coordinator');
    await whenReady(redis, target);
    try {
      await publishSecretCheck(redis, secret, target);
    } catch (err) {
      await closeRedis(redis);
      throw err;
    }
    return new StepQueue(redis, await openLanes(target, redis), secret);
  }

  /**
   * Runs a job on some worker and returns its result. A job that finished
   * already (a coordinator killed and resumed) is not run again; one that
   * failed is run again. `prepare` stores what the job needs in Redis: it
   * is called before the job is added, and again if Redis lost the job.
   */
  async run(
    job: JobRequest,
    prepare: () => Promise<void>,
    onProgress: (data: unknown) => void,
    signal: AbortSignal,
  ): Promise<StepJobResult> {
    const known = await this.lookUp(job, new Set(), true);
    // A usage limit's result is no answer to reuse: after the reset the same step (same id) is asked again.
    const spent = known.result?.error?.code === 'ERR_USAGE_LIMIT';
    if (known.state === 'completed' && !known.result!.cancelled && !spent) return known.result!;
    // A step stopped by a Ctrl-C has no result to reuse, a failed one is tried again, and a job that is not ours is replaced: each runs again.
    const again =
      known.state === 'completed' || known.state === 'failed' || known.state === 'forged';
    if (again) await known.job!.remove().catch(() => undefined);
    const nonces = new Set<string>(known.nonce !== undefined && !again ? [known.nonce] : []);
    const result = new Promise<StepJobResult | RaymondError>((resolve) =>
      this.pending.set(job.id, {
        job,
        prepare,
        settle: resolve,
        onProgress,
        nonces,
        refreshAt: Date.now(),
      }),
    );
    if (known.state === 'unknown' || again) await this.add(job, prepare);
    const cancel = () => void this.cancel(job.id);
    signal.addEventListener('abort', cancel, { once: true });
    if (signal.aborted) cancel();
    try {
      const r = await result;
      if (r instanceof RaymondError) throw r;
      return r;
    } finally {
      signal.removeEventListener('abort', cancel);
    }
  }

  /** The queue a job goes to. */
  private queueOf(job: JobRequest): Queue {
    return this.lanes.get(queueOf(job.kind))!.queue;
  }

  /** A job's state and what it says (see lookUpJob). */
  private lookUp(job: JobRequest, nonces: ReadonlySet<string>, whole: boolean): Promise<JobLookup> {
    return lookUpJob(this.queueOf(job), this.secret, job.id, nonces, whole);
  }

  private async sign(
    job: JobRequest,
    nonce: string,
  ): Promise<{ signed: ReturnType<typeof signJob>; refreshAt: number }> {
    const expires = (await redisNow(this.redis)) + JOB_VALID_MS;
    return {
      signed: signJob(this.secret, { ...job, nonce, expires } satisfies StepJob),
      refreshAt: Date.now() + JOB_VALID_MS / 2,
    };
  }

  private async add(job: JobRequest, prepare: () => Promise<void>): Promise<void> {
    await prepare();
    await this.redis.del(cancelKey(job.id));
    const nonce = randomUUID();
    const { signed, refreshAt } = await this.sign(job, nonce);
    const p = this.pending.get(job.id);
    if (p) {
      p.nonces.add(nonce);
      p.refreshAt = refreshAt;
    }
    await this.queueOf(job).add('step', signed, {
      jobId: job.id,
      attempts: 1,
      removeOnComplete: { age: KEEP_SECONDS },
      removeOnFail: { age: KEEP_SECONDS },
    });
  }

  /** Pushes back the expiry of a job the coordinator still waits for (same nonce): only it can, holding the secret. */
  private async refresh(p: Pending, bull: Job | undefined): Promise<void> {
    const mine = bull ? openJob(this.secret, bull.data) : undefined;
    if (!bull || !mine) return;
    const { signed, refreshAt } = await this.sign(p.job, mine.nonce);
    await bull.updateData(signed);
    p.nonces.add(mine.nonce);
    p.refreshAt = refreshAt;
  }

  private finish(jobId: string, r: StepJobResult | RaymondError): void {
    const p = this.pending.get(jobId);
    if (!p) return;
    this.pending.delete(jobId);
    p.settle(r);
  }

  /**
   * Tells `worker` that `session` of `run` will not go on soon: its live
   * Claude Code process there goes now, not after the idle limit. Best
   * effort: when Redis is away the process goes at the limit anyway.
   */
  async endSession(worker: string, run: string, session: string): Promise<void> {
    const key = endedKey(worker);
    await this.redis
      .multi()
      .rpush(key, JSON.stringify({ run, session }))
      .expire(key, 3600)
      .exec()
      .catch(() => undefined);
  }

  /** Stops a job: one still waiting is removed, one running is flagged for its worker to kill. */
  private async cancel(id: string): Promise<void> {
    const p = this.pending.get(id);
    if (!p) return;
    await this.redis.set(cancelKey(id), '1', 'EX', 3600);
    const queue = this.queueOf(p.job);
    const state = await queue.getJobState(id);
    if (
      state === 'waiting' ||
      state === 'delayed' ||
      state === 'prioritized' ||
      state === 'unknown'
    ) {
      await queue.remove(id).catch(() => undefined);
      this.finish(
        id,
        new RaymondError(
          p.job.kind === 'markdown' ? 'ERR_AGENT_FAILED' : 'ERR_SCRIPT_FAILED',
          'stopped',
          { file: p.job.where },
        ),
      );
    }
  }

  /**
   * Looks up every job in flight: settles those whose event was missed,
   * adds again those Redis lost, pushes back the expiry of the others,
   * and refuses a result nobody with the secret signed (the job is removed,
   * so that a resume runs the step again).
   */
  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      if (Date.now() - this.checkedAt > CHECK_REFRESH_MS) {
        await refreshSecretCheck(this.redis, this.secret);
        this.checkedAt = Date.now();
      }
      for (const [id, p] of [...this.pending]) {
        const known = await this.lookUp(p.job, p.nonces, Date.now() >= p.refreshAt);
        if (known.state === 'completed') this.finish(id, known.result!);
        else if (known.state === 'failed') this.finish(id, failure(known.reason, p.job.where));
        else if (known.state === 'forged') {
          await known.job?.remove().catch(() => undefined);
          this.finish(id, forgedResult(p.job.where));
        } else if (known.state === 'unknown' && this.pending.has(id))
          await this.add(p.job, p.prepare);
        // Running jobs too: one whose worker dies goes back to the queue, and must still be valid there.
        else if (Date.now() >= p.refreshAt) await this.refresh(p, known.job);
      }
    } catch {
      // Redis went away mid-poll: the next poll, once it is back, tries again.
    } finally {
      this.polling = false;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await closeLanes(this.lanes);
    await closeRedis(this.redis);
  }
}
