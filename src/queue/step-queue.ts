import { Job, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { RaymondError } from '../errors.js';
import { BlobStore } from './blob-store.js';
import { signJob } from './job-signing.js';
import type { QueueTarget } from './queue-url.js';
import { closeRedis, openRedis, whenReady, type LinkNotice } from './redis-link.js';
import { KEY_PREFIX, QUEUE_NAME, type StepJob, type StepJobResult } from './step-job.js';

/** How often jobs in flight are looked up, besides the events that announce them: a missed event, or a job Redis lost, is found this way. */
const POLL_MS = 1000;
/** How long finished jobs stay in Redis: long enough for a coordinator killed meanwhile to come back and take their results. */
const KEEP_SECONDS = 7 * 24 * 3600;
/** A cancelled job's flag, read by the worker that runs it. */
export const cancelKey = (id: string) => `${KEY_PREFIX}:cancel:${id}`;

interface Pending {
  job: StepJob;
  prepare: () => Promise<void>;
  settle: (r: StepJobResult | RaymondError) => void;
  onProgress: (data: unknown) => void;
}

function parse(value: unknown): StepJobResult {
  return (typeof value === 'string' ? JSON.parse(value) : value) as StepJobResult;
}

function failure(reason: string | undefined, where: string): RaymondError {
  const text = reason ?? 'failed';
  if (text.startsWith('refused:')) return new RaymondError('ERR_QUEUE_REFUSED', `a worker ${text}`, { file: where });
  return new RaymondError('ERR_QUEUE', `the queued step failed on its worker: ${text}`, { file: where });
}

/**
 * The coordinator's side of the queue: adds signed step jobs (one job id per
 * step and turn, so a job is added once however often it is asked for),
 * and hands back each job's result exactly once, from the event that
 * announces it or, if that was missed, from the job itself.
 */
export class StepQueue {
  readonly blobs: BlobStore;
  private readonly pending = new Map<string, Pending>();
  private readonly timer: NodeJS.Timeout;
  private polling = false;

  private constructor(
    private readonly redis: Redis,
    private readonly eventsRedis: Redis,
    private readonly events: QueueEvents,
    private readonly queue: Queue,
    private readonly secret: string,
  ) {
    this.blobs = new BlobStore(redis, KEY_PREFIX);
    events.on('completed', ({ jobId, returnvalue }) => this.finish(jobId, parse(returnvalue)));
    events.on('failed', ({ jobId, failedReason }) => {
      const p = this.pending.get(jobId);
      if (p) this.finish(jobId, failure(failedReason, p.job.where));
    });
    events.on('progress', ({ jobId, data }) => this.pending.get(jobId)?.onProgress(data));
    this.timer = setInterval(() => void this.poll(), POLL_MS);
    this.timer.unref();
  }

  /** Connects (waiting for Redis if it is down, and saying so once through `notice`). */
  static async open(target: QueueTarget, secret: string, notice: LinkNotice): Promise<StepQueue> {
    const redis = openRedis(target, notice, 'raymond-coordinator');
    await whenReady(redis, target);
    const quiet: LinkNotice = () => undefined;
    const eventsRedis = openRedis(target, quiet, 'raymond-events');
    const events = new QueueEvents(QUEUE_NAME, { connection: eventsRedis, prefix: KEY_PREFIX });
    const queue = new Queue(QUEUE_NAME, { connection: redis, prefix: KEY_PREFIX });
    queue.on('error', () => undefined);
    events.on('error', () => undefined);
    await events.waitUntilReady();
    return new StepQueue(redis, eventsRedis, events, queue, secret);
  }

  /**
   * Runs a job on some worker and returns its result. A job that finished
   * already (a coordinator killed and resumed) is not run again; one that
   * failed is run again. `prepare` stores what the job needs in Redis: it
   * is called before the job is added, and again if Redis lost the job.
   */
  async run(job: StepJob, prepare: () => Promise<void>, onProgress: (data: unknown) => void, signal: AbortSignal): Promise<StepJobResult> {
    const known = await this.lookUp(job.id);
    if (known.state === 'completed' && !known.result!.cancelled) return known.result!;
    // A step stopped by a Ctrl-C has no result to reuse, and a failed one is tried again: either runs again.
    if (known.state === 'completed' || known.state === 'failed') await known.job!.remove().catch(() => undefined);
    const result = new Promise<StepJobResult | RaymondError>((resolve) => this.pending.set(job.id, { job, prepare, settle: resolve, onProgress }));
    if (known.state === 'unknown' || known.state === 'completed' || known.state === 'failed') await this.add(job, prepare);
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

  /**
   * A job's state, then the job: in that order, since BullMQ stores the
   * result and marks the job completed at once, a job read first could
   * predate its own result. A completed job without a result yet counts as
   * still running.
   */
  private async lookUp(id: string): Promise<{ state: string; job?: Job; result?: StepJobResult; reason?: string }> {
    const state = await this.queue.getJobState(id);
    if (state !== 'completed' && state !== 'failed') return { state };
    const job = await Job.fromId<unknown, unknown>(this.queue, id);
    if (!job) return { state: 'unknown' };
    if (state === 'failed') return { state, job, reason: job.failedReason };
    const value: unknown = job.returnvalue;
    return value === null || value === undefined ? { state: 'active' } : { state, job, result: parse(value) };
  }

  private async add(job: StepJob, prepare: () => Promise<void>): Promise<void> {
    await prepare();
    await this.redis.del(cancelKey(job.id));
    await this.queue.add('step', signJob(this.secret, job), { jobId: job.id, attempts: 1, removeOnComplete: { age: KEEP_SECONDS }, removeOnFail: { age: KEEP_SECONDS } });
  }

  private finish(jobId: string, r: StepJobResult | RaymondError): void {
    const p = this.pending.get(jobId);
    if (!p) return;
    this.pending.delete(jobId);
    p.settle(r);
  }

  /** Stops a job: one still waiting is removed, one running is flagged for its worker to kill. */
  private async cancel(id: string): Promise<void> {
    const p = this.pending.get(id);
    if (!p) return;
    await this.redis.set(cancelKey(id), '1', 'EX', 3600);
    const state = await this.queue.getJobState(id);
    if (state === 'waiting' || state === 'delayed' || state === 'prioritized' || state === 'unknown') {
      await this.queue.remove(id).catch(() => undefined);
      this.finish(id, new RaymondError(p.job.kind === 'markdown' ? 'ERR_CLAUDE_FAILED' : 'ERR_SCRIPT_FAILED', 'stopped', { file: p.job.where }));
    }
  }

  /** Looks up every job in flight: settles those whose event was missed, adds again those Redis lost. */
  private async poll(): Promise<void> {
    if (this.polling || this.pending.size === 0) return;
    this.polling = true;
    try {
      for (const [id, p] of [...this.pending]) {
        const known = await this.lookUp(id);
        if (known.state === 'completed') this.finish(id, known.result!);
        else if (known.state === 'failed') this.finish(id, failure(known.reason, p.job.where));
        else if (known.state === 'unknown' && this.pending.has(id)) await this.add(p.job, p.prepare);
      }
    } catch {
      // Redis went away mid-poll: the next poll, once it is back, tries again.
    } finally {
      this.polling = false;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.events.close().catch(() => undefined);
    await this.queue.close().catch(() => undefined);
    await closeRedis(this.redis, this.eventsRedis);
  }
}
