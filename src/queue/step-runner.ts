import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentFields } from '../../machines/types.js';
import { backendExecutor } from '../agents/registry/backend-executor.js';
import type { RunKeeper } from '../agents/run-keep.js';
import { RaymondError, errorMessage } from '../errors.js';
import type { Execution, ExecutionRequest } from '../executors/executor.js';
import { createScriptExecutor } from '../executors/script-executor.js';
import type { SpawnerPool } from '../executors/spawner-pool.js';
import type { ValueFiles } from '../executors/value-files.js';
import type { BlobStore } from './blob-store.js';
import type { JobProgress } from './job-progress.js';
import type { SessionTranscripts } from './session-transcripts.js';
import {
  rebase,
  rebaseAgent,
  rebaseText,
  rebaseWorktree,
  type StepJob,
  type StepJobResult,
} from './step-job.js';
import type { WorkerGate } from './worker-gate.js';
import type { WorkerWidths } from './worker-widths.js';
import type { WorkerWorktrees } from './worker-worktrees.js';
import { receiveFolder } from './workflow-files.js';

/**
 * Running a step job on a worker, once step-worker.ts has checked and claimed it. Apart from
 * the worker so that the queue's side (signatures, claims, heartbeats) and the step's side
 * (executors, worktrees, transcripts) each read on their own.
 */

/** What a worker lends the jobs it runs: its settings and what it keeps from one job to the next. */
export interface StepRunnerContext {
  /** The worker's name, put in each result. */
  name: string;
  /** This machine's checkout of the project: the coordinator's project root maps onto it. */
  workdir: string;
  /** The backends' settings of this machine (`--claude-bin`), by run name: over each job's. */
  machineSettings: Readonly<Record<string, unknown>>;
  /** This machine's places (`--concurrency`): also as many live processes as a backend may keep. */
  gate: WorkerGate;
  /** Where workflow folders are cached. */
  cache: string;
  blobs: BlobStore;
  spawners: SpawnerPool;
  values: ValueFiles;
  worktrees: WorkerWorktrees;
  transcripts: SessionTranscripts;
  /** The accounts' widths, shared with every worker through Redis. */
  widths: WorkerWidths;
  /** What the backends keep between the turns of a job's run here, made on first use. */
  keepOf: (job: StepJob) => RunKeeper;
}

/** Makes an agent's task folder (when its workflow uses them) and, for an agent with a worktree, takes a folder for it on this machine. */
async function place(c: StepRunnerContext, job: StepJob, agent: AgentFields): Promise<AgentFields> {
  if (job.makeTaskFolder && agent.task_folder) await mkdir(agent.task_folder, { recursive: true });
  const w = agent.worktree;
  if (!w || w.removed !== undefined) return agent;
  const path = await c.worktrees.acquire(job.run, w, agent.id, job.pushRemote);
  return { ...agent, worktree: { ...w, path } };
}

/**
 * Runs one checked step job here: a script, a Claude Code (or pi) turn, or the end of an agent's
 * worktree, its paths moved from the coordinator's project root onto this machine's and back.
 * A Raymond error becomes the result's error; anything else throws, failing the job.
 */
export async function runStepJob(
  c: StepRunnerContext,
  job: StepJob,
  signal: AbortSignal,
  progress: Pick<JobProgress, 'forward' | 'spent'>,
): Promise<StepJobResult> {
  // A turn takes its place here once its account lets it start (WorkerGate.after); any other step, before it starts.
  if (job.kind === 'markdown') return runJob(c, job, signal, progress);
  try {
    await c.gate.enter(signal);
  } catch {
    const code = job.kind === 'script' ? 'ERR_SCRIPT_FAILED' : 'ERR_WORKTREE';
    return {
      worker: c.name,
      error: new RaymondError(code, 'stopped', { file: job.where }).toJSON(),
    };
  }
  try {
    return await runJob(c, job, signal, progress);
  } finally {
    c.gate.leave();
  }
}

async function runJob(
  c: StepRunnerContext,
  job: StepJob,
  signal: AbortSignal,
  { forward, spent }: Pick<JobProgress, 'forward' | 'spent'>,
): Promise<StepJobResult> {
  const result: StepJobResult = { worker: c.name };
  if (job.kind === 'worktree.finish') {
    const done = await c.worktrees.finish(
      job.run,
      rebaseWorktree(job.agent.worktree!, job.root, c.workdir),
      job.agent.id,
      job.pushRemote,
    );
    result.worktree = rebaseWorktree(done, c.workdir, job.root);
    return result;
  }
  const agent = await place(c, job, rebaseAgent(job.agent, job.root, c.workdir));
  const request = (scriptPath: string): ExecutionRequest => ({
    workflowId: job.run,
    agent,
    file: job.file,
    signal,
    timeoutMs: job.timeoutMs,
    timeoutFromState: job.timeoutFromState,
    scope: { display: () => job.where, scriptPath: async () => scriptPath },
    ...(job.stepEnv ? { env: job.stepEnv } : {}),
  });
  let execution: Execution | undefined;
  let session: string | null | undefined;
  try {
    if (job.kind === 'script') {
      const folder = await receiveFolder(job.folder!, c.blobs, c.cache);
      execution = await createScriptExecutor(c.spawners, c.values, job.env).execute(
        request(join(folder, job.script!)),
      );
    } else {
      const keep = c.keepOf(job);
      // A transcript replaced from the run's copy: a live process of that session holds an older one.
      for (const stale of await c.transcripts.place(
        job.transcripts ?? [],
        agent.cwd,
        c.blobs,
        job.backend,
      ))
        keep.release(stale);
      const turns = backendExecutor({
        skipPermissions: job.turns!.skipPermissions,
        settings: { ...job.turns!.settings, ...c.machineSettings },
        emit: forward,
        env: job.env,
        turnSlots: c.gate.size,
        keep,
        prices: job.turns!.prices,
        // The account's width is every worker's: its changes go to the run whose turn made them.
        widthOf: (backend) => {
          const ceiling = job.turns!.maxTurns;
          const width = ceiling && c.widths.of(backend, job.env, ceiling).for(forward);
          const placed = c.gate.after(width || undefined);
          // --no-adaptive-width: no gate either, the API is called as the CLI calls it.
          const env = width && c.widths.gateEnv(backend, job.env ?? {}, { ceiling, emit: forward });
          return env ? { ...placed, env } : placed;
        },
      });
      execution = await turns.execute({
        ...request(''),
        backend: job.backend,
        prompt: rebaseText(job.prompt ?? '', job.root, c.workdir),
        session: job.session,
        costBase: job.costBase,
        // Only when the coordinator watches it: Codex reads its rollout file for it.
        ...(job.watchSpend && { onSpend: spent }),
        model: job.model,
        fallbackModels: job.fallbackModels,
        effort: job.effort,
        grant: job.grant && {
          ...job.grant,
          addDirs: job.grant.addDirs?.map((d) => rebase(d, job.root, c.workdir)),
        },
      });
      session = execution.session;
    }
    result.execution = execution;
  } catch (err) {
    if (!(err instanceof RaymondError)) throw err;
    result.error = err.toJSON();
    session = (err.details as { session?: string | null }).session;
  }
  if (session) {
    const t = await c.transcripts.collect(session, agent.cwd, job.backend);
    if (t) result.transcript = t;
  }
  if (agent.worktree?.path !== undefined)
    await c.worktrees
      .push(agent.worktree, job.pushRemote)
      .catch((err: unknown) =>
        forward({ type: 'warning', text: `[${agent.id}] ${errorMessage(err)}` }),
      );
  return result;
}
