import { hostname } from 'node:os';
import { DelayedError, Worker, type Job } from 'bullmq';
import { RunKeeper } from '../agents/run-keep.js';
import { RaymondError, errorMessage } from '../errors.js';
import { createSpawnerPool } from '../executors/spawner-pool.js';
import { createValueFiles } from '../executors/value-files.js';
import { BlobStore } from './blob-store.js';
import { claimJob, finishClaim, finishedResult, redisNow, renewClaim } from './job-claims.js';
import { jobProgress } from './job-progress.js';
import { secretCheck, signedPayload, signJob, type SignedJob } from './job-signing.js';
import { endedSession, stepJobEnvelope } from './queue-schemas.js';
import type { QueueTarget } from './queue-url.js';
import { closeRedis, openRedis, whenReady } from './redis-link.js';
import { secretVerdict, wrongSecret } from './secret-check.js';
import { SessionTranscripts } from './session-transcripts.js';
import {
  JOB_VALID_MS,
  KEY_PREFIX,
  QUEUE_NAMES,
  cancelKey,
  endedKey,
  type SignedResultPayload,
  type StepJob,
  type StepJobResult,
} from './step-job.js';
import { runStepJob, type StepRunnerContext } from './step-runner.js';
import { BEAT_MS, alive, beat, leave, workerBeat, type WorkerBeat } from './worker-registry.js';
import { WorkerGate } from './worker-gate.js';
import { WorkerWidths } from './worker-widths.js';
import { WorkerWorktrees } from './worker-worktrees.js';

/** How a worker is started (`raymond worker`). */
export interface WorkerOptions {
  target: QueueTarget;
  secret: string;
  name: string;
  /** This machine's checkout of the project: the coordinator's project root maps onto it. */
  workdir: string;
  concurrency: number;
  /** The backends' settings of this machine (`--claude-bin`), by run name: over each job's. */
  machineSettings?: Readonly<Record<string, unknown>>;
  /** Where workflow folders are cached. */
  cache: string;
  /** How long a job's lock lasts without renewal: a killed worker's job goes to another after about this long. */
  stallMs: number;
  /** One line per thing worth saying. */
  log: (line: string) => void;
}

/** A run that gave this worker no job for this long has its live processes and free worktree folders let go. */
const RUN_QUIET_MS = 10 * 60_000;

/** How long a job waits for the worker that holds its session or worktree before any worker takes it. */
const PREFER_MS = 3000;

/** A refused job: the reason its job fails with, which the coordinator reports as the agent's error. */
function refuse(o: WorkerOptions, id: string | undefined, why: string): Error {
  o.log(`refused job ${id}: ${why}; nothing of it was run`);
  return new Error(`refused: ${why}; nothing of it was run`);
}

/**
 * A worker: takes signed step jobs from the queues and runs them here (a
 * script, a Claude Code turn, or the end of an agent's worktree), with as
 * many at once as `concurrency` allows. Turns come from a queue of their
 * own and take a place here only once their account's width lets them
 * start (WorkerGate): a turn waiting for its account never holds up a
 * script. It refuses any job whose signature
 * or files do not check out, that expired, or that ran already (a copy put
 * back in the queue), and runs nothing of it. Its results are signed for
 * the job they answer. A worker whose secret is not the runs' stops
 * (`stopped`) rather than refuse their jobs.
 */
export async function startWorker(
  o: WorkerOptions,
): Promise<{ close: () => Promise<void>; stopped: Promise<RaymondError> }> {
  const redis = openRedis(o.target, (text) => o.log(text), `raymond-worker-${o.name}`);
  await whenReady(redis, o.target);
  if ((await secretVerdict(redis, o.secret)) === 'other') {
    await closeRedis(redis);
    throw wrongSecret(o.target);
  }
  let stop: (why: RaymondError) => void = () => undefined;
  const stopped = new Promise<RaymondError>((resolve) => (stop = resolve));
  const blobs = new BlobStore(redis, KEY_PREFIX);
  const spawners = createSpawnerPool();
  const values = createValueFiles();
  const worktrees = new WorkerWorktrees();
  const transcripts = new SessionTranscripts();
  const widths = new WorkerWidths(redis, o.target, o.name);
  const gate = new WorkerGate(o.concurrency);
  /** What the backends keep between a run's turns here (live processes), by run. */
  const keeps = new Map<string, RunKeeper>();
  const active = new Map<string, { ac: AbortController; job: StepJob }>();
  /** The (job, nonce) pairs this worker started, until they expire: refused again even if their claim in Redis is deleted. */
  const started = new Map<string, number>();
  /** A running job's claim lapses this long after its worker stops renewing it. */
  const claimMs = Math.max(o.stallMs, 3 * BEAT_MS);
  const figures: WorkerBeat = {
    name: o.name,
    host: hostname(),
    pid: process.pid,
    concurrency: o.concurrency,
    active: 0,
    waiting: 0,
    done: 0,
    failed: 0,
    startedAt: Date.now(),
    beatAt: Date.now(),
    check: secretCheck(o.secret),
  };

  /** When each run last gave this worker a job: a run quiet for long lets go of what the worker keeps for it. */
  const lastJob = new Map<string, number>();
  const keepOf = (job: StepJob) =>
    keeps.get(job.run) ?? keeps.set(job.run, new RunKeeper()).get(job.run)!;
  const forgetQuietRuns = async () => {
    for (const [run, at] of lastJob) {
      if (Date.now() - at < RUN_QUIET_MS || [...active.values()].some((a) => a.job.run === run))
        continue;
      lastJob.delete(run);
      keeps.get(run)?.close();
      keeps.delete(run);
      await worktrees.closeRun(run);
    }
  };

  /** Lets go of the live processes of sessions the coordinator says will not go on soon. */
  const releaseEnded = async () => {
    for (const entry of (await redis.lpop(endedKey(o.name), 1000)) ?? []) {
      let ended: unknown;
      try {
        ended = JSON.parse(entry);
      } catch {
        continue;
      }
      if (endedSession.check(ended)) keeps.get(ended.run)?.release(ended.session);
    }
  };

  const runner: StepRunnerContext = {
    name: o.name,
    workdir: o.workdir,
    machineSettings: o.machineSettings ?? {},
    gate,
    cache: o.cache,
    blobs,
    spawners,
    values,
    worktrees,
    transcripts,
    widths,
    keepOf,
  };

  /** Whether to leave a job to the worker that holds its session: it lives, has room, and the job has not waited long. */
  async function leaveToHolder(job: StepJob): Promise<boolean> {
    if (!job.prefer || job.prefer === o.name || Date.now() - job.queuedAt > PREFER_MS) return false;
    const holder = await workerBeat(redis, job.prefer);
    return !!holder && alive(holder) && holder.active < holder.concurrency;
  }

  /** Puts a job back in the queue for later (or for another worker), untouched. */
  const later = async (bull: Job, token: string | undefined, ms: number): Promise<never> => {
    await bull.moveToDelayed(Date.now() + ms, token);
    throw new DelayedError();
  };

  const processor = async (bull: Job, token?: string): Promise<SignedJob> => {
    const signed = signedPayload(o.secret, bull.data);
    // Rightly signed, but not a job this worker knows: a run of another version.
    if (signed && !stepJobEnvelope.check(signed.payload))
      throw refuse(
        o,
        bull.id,
        `it is not a step job this worker knows (a run of another Raymond version?): ${stepJobEnvelope.problem(signed.payload, 'the job')}`,
      );
    // The envelope is checked; the rest is the coordinator's own data, signed whole.
    const job = signed?.payload as StepJob | undefined;
    if (!job || job.id !== bull.id) {
      // Signed with another secret while the runs publish theirs: this worker's secret is the wrong one, not the job.
      if (!job && (await secretVerdict(redis, o.secret)) === 'other') {
        stop(wrongSecret(o.target));
        return later(bull, token, 0);
      }
      throw refuse(
        o,
        bull.id,
        'its signature does not match the shared secret (a forged or altered job, or one signed with another secret)',
      );
    }
    const ran = `${job.id} ${job.nonce}`;
    // A copy of a job that ran: the result it left, if it left one (its lock lapsed while it ran), else refused.
    const ranAlready = async (): Promise<SignedJob> =>
      (await finishedResult(redis, job.id, job.nonce)) ??
      Promise.reject(refuse(o, bull.id, 'it ran already (a copy put back in the queue)'));
    if (active.has(bull.id)) return later(bull, token, claimMs);
    if (started.has(ran)) return ranAlready();
    const now = await redisNow(redis);
    if (job.expires < now)
      throw refuse(
        o,
        bull.id,
        `it expired ${Math.round((now - job.expires) / 1000)} s ago (a copy put back in the queue after its run stopped waiting for it)`,
      );
    if (await leaveToHolder(job)) return later(bull, token, 50);
    const claim = await claimJob(redis, job.id, job.nonce, o.name, claimMs);
    if (claim.kind === 'done') return ranAlready();
    // Another worker runs it (or ran it and died): once its claim lapses, this one may.
    if (claim.kind === 'running') return later(bull, token, claim.retryInMs);
    started.set(ran, job.expires);
    const ac = new AbortController();
    lastJob.set(job.run, Date.now());
    active.set(bull.id, { ac, job });
    const progress = jobProgress(o.secret, job, bull);
    let signedResult: SignedJob | undefined;
    try {
      const r = await runStepJob(runner, job, ac.signal, progress);
      figures.done++;
      const result: StepJobResult = ac.signal.aborted ? { ...r, cancelled: true } : r;
      const payload: SignedResultPayload = { for: 'result', id: job.id, nonce: job.nonce, result };
      return (signedResult = signJob(o.secret, payload));
    } catch (err) {
      figures.failed++;
      o.log(`job ${bull.id} failed: ${errorMessage(err)}`);
      throw err;
    } finally {
      await progress.close();
      // Kept for a copy at least as long as a copy may still run (past the job's expiry), and a minute.
      const keepMs = Math.max(60_000, job.expires - now);
      await finishClaim(redis, job.id, job.nonce, signedResult, keepMs).catch(() => undefined);
      active.delete(bull.id);
    }
  };

  // One BullMQ worker a queue, each on its own connection (a worker blocks its connection waiting for jobs).
  // BullMQ leaves a connection it was given open when it closes: close() closes them, or the process would never end.
  const jobsRedis = QUEUE_NAMES.map((name) =>
    openRedis(o.target, () => undefined, `raymond-worker-${o.name}-${name}`),
  );
  const workers = QUEUE_NAMES.map((name, i) => {
    const worker = new Worker(name, processor, {
      connection: jobsRedis[i]!,
      prefix: KEY_PREFIX,
      concurrency: o.concurrency,
      lockDuration: o.stallMs,
      stalledInterval: o.stallMs,
      maxStalledCount: 10,
    });
    worker.on('error', () => undefined);
    return worker;
  });

  const heartbeat = async () => {
    figures.beatAt = Date.now();
    figures.active = gate.running;
    figures.waiting = active.size - gate.running;
    await beat(redis, figures).catch(() => undefined);
    // A run started since with another secret than this worker's: stop before taking its jobs.
    if ((await secretVerdict(redis, o.secret).catch(() => 'same')) === 'other')
      stop(wrongSecret(o.target));
    for (const { job } of active.values())
      await renewClaim(redis, job.id, job.nonce, o.name, claimMs).catch(() => undefined);
    const now = Date.now();
    for (const [ran, expires] of started) if (expires + JOB_VALID_MS < now) started.delete(ran);
    await forgetQuietRuns().catch((err: unknown) =>
      o.log(`could not let go of a finished run's folders: ${errorMessage(err)}`),
    );
    await releaseEnded().catch(() => undefined);
    // A job the coordinator stopped: its flag is read here.
    for (const [id, { ac }] of active) {
      if (!ac.signal.aborted && (await redis.exists(cancelKey(id)).catch(() => 0)) === 1)
        ac.abort();
    }
  };
  await heartbeat();
  const beating = setInterval(() => void heartbeat(), BEAT_MS);
  o.log(
    `worker ${o.name} (concurrency ${o.concurrency}, workdir ${o.workdir}) is taking steps from ${o.target.shown}`,
  );

  return {
    stopped,
    async close() {
      clearInterval(beating);
      for (const { ac } of active.values()) ac.abort();
      await Promise.all(workers.map((w) => w.close().catch(() => undefined)));
      await leave(redis, o.name).catch(() => undefined);
      for (const keep of keeps.values()) keep.close();
      await widths.close();
      await worktrees.close();
      await spawners.close();
      await values.close();
      await closeRedis(redis, ...jobsRedis);
    },
  };
}
