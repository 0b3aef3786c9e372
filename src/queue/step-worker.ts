import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { DelayedError, Worker, type Job } from 'bullmq';
import type { RunEvent } from '../../machines/run-events.js';
import type { AgentFields } from '../../machines/types.js';
import { createClaudeExecutor } from '../claude/claude-executor.js';
import { backendExecutor } from '../backends/agent-backend.js';
import { createPiExecutor } from '../pi/pi-executor.js';
import { createWarmSessions, type WarmSessions } from '../claude/warm-sessions.js';
import { RaymondError, errorMessage } from '../errors.js';
import type { Execution, ExecutionRequest } from '../executors/executor.js';
import { createScriptExecutor } from '../executors/script-executor.js';
import { createSpawnerPool } from '../executors/spawner-pool.js';
import { createValueFiles } from '../executors/value-files.js';
import { BlobStore } from './blob-store.js';
import { verifyJob } from './job-signing.js';
import type { QueueTarget } from './queue-url.js';
import { closeRedis, openRedis, whenReady } from './redis-link.js';
import { SessionTranscripts } from './session-transcripts.js';
import { KEY_PREFIX, QUEUE_NAME, rebase, rebaseAgent, rebaseText, rebaseWorktree, type StepJob, type StepJobResult } from './step-job.js';
import { cancelKey } from './step-queue.js';
import { BEAT_MS, alive, beat, leave, workerBeat, type WorkerBeat } from './worker-registry.js';
import { WorkerWorktrees } from './worker-worktrees.js';
import { receiveFolder } from './workflow-files.js';

/** How a worker is started (`raymond worker`). */
export interface WorkerOptions {
  target: QueueTarget;
  secret: string;
  name: string;
  /** This machine's checkout of the project: the coordinator's project root maps onto it. */
  workdir: string;
  concurrency: number;
  claudeBin?: string | undefined;
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

/** The worker's own events a coordinator shows: what Claude said, and warnings. */
const FORWARDED = new Set<RunEvent['type']>(['print', 'warning', 'detail', 'permission.denied']);

/**
 * A worker: takes signed step jobs from the queue and runs them here (a
 * script, a Claude Code turn, or the end of an agent's worktree), with as
 * many at once as `concurrency` allows. It refuses any job whose signature
 * or files do not check out, and runs nothing of it.
 */
export async function startWorker(o: WorkerOptions): Promise<{ close: () => Promise<void> }> {
  const redis = openRedis(o.target, (text) => o.log(text), `raymond-worker-${o.name}`);
  await whenReady(redis, o.target);
  const blobs = new BlobStore(redis, KEY_PREFIX);
  const spawners = createSpawnerPool();
  const values = createValueFiles();
  const worktrees = new WorkerWorktrees();
  const transcripts = new SessionTranscripts();
  const warm = new Map<string, WarmSessions>();
  const active = new Map<string, AbortController>();
  const figures: WorkerBeat = { name: o.name, host: hostname(), pid: process.pid, concurrency: o.concurrency, active: 0, done: 0, failed: 0, startedAt: Date.now(), beatAt: Date.now() };

  /** When each run last gave this worker a job: a run quiet for long lets go of what the worker keeps for it. */
  const lastJob = new Map<string, number>();
  const warmOf = (job: StepJob) => {
    let w = warm.get(job.run);
    if (!w) warm.set(job.run, (w = createWarmSessions(o.concurrency, job.env)));
    return w;
  };
  const forgetQuietRuns = async () => {
    for (const [run, at] of lastJob) {
      if (Date.now() - at < RUN_QUIET_MS || [...active.keys()].some((id) => id.startsWith(`${run}.`))) continue;
      lastJob.delete(run);
      warm.get(run)?.close();
      warm.delete(run);
      await worktrees.closeRun(run);
    }
  };

  /** Whether to leave a job to the worker that holds its session: it lives, has room, and the job has not waited long. */
  async function leaveToHolder(job: StepJob): Promise<boolean> {
    if (!job.prefer || job.prefer === o.name || Date.now() - job.queuedAt > PREFER_MS) return false;
    const holder = await workerBeat(redis, job.prefer);
    return !!holder && alive(holder) && holder.active < holder.concurrency;
  }

  async function place(job: StepJob, agent: AgentFields): Promise<AgentFields> {
    if (agent.task_folder) await mkdir(agent.task_folder, { recursive: true });
    const w = agent.worktree;
    if (!w || w.removed !== undefined) return agent;
    const path = await worktrees.acquire(job.run, w, agent.id, job.pushRemote);
    return { ...agent, worktree: { ...w, path } };
  }

  async function runJob(job: StepJob, signal: AbortSignal, forward: (e: RunEvent) => void): Promise<StepJobResult> {
    const result: StepJobResult = { worker: o.name };
    if (job.kind === 'worktree.finish') {
      const done = await worktrees.finish(job.run, rebaseWorktree(job.agent.worktree!, job.root, o.workdir), job.agent.id, job.pushRemote);
      result.worktree = rebaseWorktree(done, o.workdir, job.root);
      return result;
    }
    const agent = await place(job, rebaseAgent(job.agent, job.root, o.workdir));
    const request = (scriptPath: string): ExecutionRequest => ({
      workflowId: job.run, agent, file: job.file, signal, timeoutMs: job.timeoutMs, timeoutFromState: job.timeoutFromState,
      scope: { display: () => job.where, scriptPath: async () => scriptPath },
    });
    let execution: Execution | undefined;
    let session: string | null | undefined;
    try {
      if (job.kind === 'script') {
        const folder = await receiveFolder(job.folder!, blobs, o.cache);
        execution = await createScriptExecutor(spawners, values, job.env).execute(request(join(folder, job.script!)));
      } else {
        const live = job.claude!.warm ? warmOf(job) : undefined;
        const pi = job.backend?.name === 'pi' ? job.backend.options : undefined;
        for (const stale of await transcripts.place(job.transcripts ?? [], agent.cwd, blobs, pi)) live?.release(stale);
        const claude = backendExecutor({
          claude: createClaudeExecutor({ bin: o.claudeBin, skipPermissions: job.claude!.skipPermissions, permissionMode: job.claude!.permissionMode, disallowedTools: job.claude!.disallowedTools, emit: forward, warm: live, env: job.env }),
          pi: createPiExecutor({ skipPermissions: job.claude!.skipPermissions, emit: forward, env: job.env }),
        });
        execution = await claude.execute({ ...request(''), backend: job.backend, prompt: rebaseText(job.prompt ?? '', job.root, o.workdir), session: job.session, costBase: job.costBase, model: job.model, effort: job.effort, grant: job.grant && { ...job.grant, addDirs: job.grant.addDirs?.map((d) => rebase(d, job.root, o.workdir)) } });
        session = execution.session;
      }
      result.execution = execution;
    } catch (err) {
      if (!(err instanceof RaymondError)) throw err;
      result.error = err.toJSON();
      session = (err.details as { session?: string | null }).session;
    }
    if (session) {
      const t = await transcripts.collect(session, agent.cwd, job.backend?.name === 'pi' ? job.backend.options : undefined);
      if (t) result.transcript = t;
    }
    if (agent.worktree?.path !== undefined) await worktrees.push(agent.worktree, job.pushRemote).catch((err: unknown) => forward({ type: 'warning', text: `[${agent.id}] ${errorMessage(err)}` }));
    return result;
  }

  const processor = async (bull: Job, token?: string): Promise<StepJobResult> => {
    const job = verifyJob<StepJob>(o.secret, bull.data);
    if (!job || job.v !== 1 || job.id !== bull.id) {
      o.log(`refused job ${bull.id}: its signature does not match the shared secret (forged, altered, or signed with another secret); nothing of it was run`);
      throw new Error('refused: its signature does not match the shared secret (a forged or altered job); nothing of it was run');
    }
    if (await leaveToHolder(job)) {
      await bull.moveToDelayed(Date.now() + 50, token);
      throw new DelayedError();
    }
    const ac = new AbortController();
    lastJob.set(job.run, Date.now());
    active.set(bull.id!, ac);
    figures.active = active.size;
    const events: RunEvent[] = [];
    let flushing: Promise<unknown> = Promise.resolve();
    const flush = () => {
      if (events.length === 0) return;
      const batch = events.splice(0);
      flushing = flushing.then(() => bull.updateProgress({ events: batch }).catch(() => undefined));
    };
    const timer = setInterval(flush, 250);
    try {
      const r = await runJob(job, ac.signal, (e) => {
        if (FORWARDED.has(e.type)) events.push(e);
      });
      figures.done++;
      return ac.signal.aborted ? { ...r, cancelled: true } : r;
    } catch (err) {
      figures.failed++;
      o.log(`job ${bull.id} failed: ${errorMessage(err)}`);
      throw err;
    } finally {
      clearInterval(timer);
      flush();
      await flushing;
      active.delete(bull.id!);
      figures.active = active.size;
    }
  };

  const worker = new Worker(QUEUE_NAME, processor, {
    connection: openRedis(o.target, () => undefined, `raymond-worker-${o.name}-jobs`),
    prefix: KEY_PREFIX,
    concurrency: o.concurrency,
    lockDuration: o.stallMs,
    stalledInterval: o.stallMs,
    maxStalledCount: 10,
  });
  worker.on('error', () => undefined);

  const heartbeat = async () => {
    figures.beatAt = Date.now();
    await beat(redis, figures).catch(() => undefined);
    await forgetQuietRuns().catch((err: unknown) => o.log(`could not let go of a finished run's folders: ${errorMessage(err)}`));
    // A job the coordinator stopped: its flag is read here.
    for (const [id, ac] of active) {
      if (!ac.signal.aborted && (await redis.exists(cancelKey(id)).catch(() => 0)) === 1) ac.abort();
    }
  };
  await heartbeat();
  const beating = setInterval(() => void heartbeat(), BEAT_MS);
  o.log(`worker ${o.name} (concurrency ${o.concurrency}, workdir ${o.workdir}) is taking steps from ${o.target.shown}`);

  return {
    async close() {
      clearInterval(beating);
      for (const ac of active.values()) ac.abort();
      await worker.close().catch(() => undefined);
      await leave(redis, o.name).catch(() => undefined);
      for (const w of warm.values()) w.close();
      await worktrees.close();
      await spawners.close();
      await values.close();
      await closeRedis(redis);
    },
  };
}
