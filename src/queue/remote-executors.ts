import { backendOf } from '../agents/registry/registry.js';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import type { RunEvent, RunEventSink } from '../../machines/run-events.js';
import type { AgentFields, WorktreeRef } from '../../machines/types.js';
import { RaymondError } from '../errors.js';
import type {
  Execution,
  ExecutionRequest,
  SessionPlan,
  StateExecutor,
} from '../executors/executor.js';
import { worktreesDir } from '../worktrees/git-worktrees.js';
import type { WorktreePool } from '../worktrees/worktree-pool.js';
import { sha256 } from './blob-store.js';
import { safeSegment } from './safe-names.js';
import type {
  JobRequest,
  StepJob,
  StepJobResult,
  TranscriptRef,
  TurnJobSettings,
} from './step-job.js';
import type { StepQueue } from './step-queue.js';
import { sendFolder } from './workflow-files.js';

/** What the coordinator's executors need from the run. */
export interface RemoteContext {
  queue: StepQueue;
  workflowId: string;
  /** The run's project root, and where the run keeps the transcripts of its sessions. */
  root: string;
  transcripts: string;
  env: Readonly<Record<string, string>>;
  turns: TurnJobSettings;
  pushRemote: string;
  emit: RunEventSink;
}

/** The session a turn continues or branches from, whose transcript has to travel with it. */
function parentOf(plan: SessionPlan | undefined, where: string): string | undefined {
  if (!plan) return undefined;
  if (plan.kind === 'resume') return plan.session;
  if (plan.kind === 'branch') return plan.from;
  if (plan.kind === 'continue') {
    throw new RaymondError(
      'ERR_QUEUE',
      '--continue-session branches from your own Claude Code session on this machine, which a worker does not have: run it without --queue',
      { file: where },
    );
  }
  return undefined;
}

/**
 * The coordinator's executors for a queued run: each script and each
 * Claude Code turn becomes a signed job that some worker runs, and the
 * agents' worktrees are made on the workers. Everything else about a step
 * (rendering, reading the tags, reminders, retries, costs) stays here.
 */
export function createRemoteExecutors(ctx: RemoteContext): {
  script: StateExecutor;
  markdown: StateExecutor;
  worktrees: WorktreePool;
} {
  const folders = new Map<string, Promise<{ manifest: string; shas: string[] }>>();
  /** Which worker last ran each session and each agent: the next turn is offered to it first. */
  const sessionHolder = new Map<string, string>();
  const agentHolder = new Map<string, string>();
  /** Per agent: the step it is on (its reserved session id) and how many jobs that step made, for the next job's id. */
  const turns = new Map<string, { token: string; n: number }>();

  const jobId = (agent: AgentFields) => {
    const token = agent.next_session ?? 'step';
    const t = turns.get(agent.id);
    const n = t && t.token === token ? t.n + 1 : 0;
    turns.set(agent.id, { token, n });
    return `${ctx.workflowId}.${agent.id}.${token}.${n}`.replace(/:/g, '_');
  };

  const base = (
    req: Pick<
      ExecutionRequest,
      'agent' | 'file' | 'timeoutMs' | 'timeoutFromState' | 'scope' | 'env' | 'makeTaskFolder'
    >,
    kind: StepJob['kind'],
  ): JobRequest => ({
    v: 4,
    kind,
    run: ctx.workflowId,
    id: jobId(req.agent),
    root: ctx.root,
    agent: req.agent,
    file: req.file,
    where: req.scope.display(req.file),
    timeoutMs: req.timeoutMs,
    timeoutFromState: req.timeoutFromState,
    env: { ...ctx.env },
    ...(req.env ? { stepEnv: { ...req.env } } : {}),
    ...(req.makeTaskFolder ? { makeTaskFolder: true } : {}),
    pushRemote: ctx.pushRemote,
    queuedAt: Date.now(),
  });

  /** A job's progress: its worker's events go to the run, a watched turn's streamed cost to the step's `onSpend`. */
  const progressOf = (onSpend?: (costUsd: number) => void) => (data: unknown) => {
    const p = data as { events?: RunEvent[]; spentUsd?: number } | null;
    for (const e of p?.events ?? []) ctx.emit(e);
    if (p?.spentUsd !== undefined) onSpend?.(p.spentUsd);
  };

  /** Runs a job; a worker's error comes back as the error the local executor would have thrown. */
  async function run(
    job: JobRequest,
    prepare: () => Promise<void>,
    signal: AbortSignal,
    onSpend?: (costUsd: number) => void,
  ): Promise<StepJobResult> {
    const r = await ctx.queue.run(job, prepare, progressOf(onSpend), signal);
    agentHolder.set(job.agent.id, r.worker);
    if (r.transcript) {
      // The id names a file here, and the name one on the next worker: neither may leave its folder.
      const id = safeSegment(r.transcript.id, "a worker's session id", job.where);
      if (r.transcript.name !== undefined)
        safeSegment(r.transcript.name, "a worker's transcript file name", job.where);
      await mkdir(ctx.transcripts, { recursive: true });
      await writeFileAtomic(join(ctx.transcripts, `${id}.jsonl`), r.transcript.text);
      if (r.transcript.name)
        await writeFileAtomic(join(ctx.transcripts, `${id}.name`), r.transcript.name);
      sessionHolder.set(id, r.worker);
    }
    if (r.error) throw RaymondError.fromJSON(r.error);
    return r;
  }

  const folderOf = (dir: string) => {
    let f = folders.get(dir);
    if (!f) folders.set(dir, (f = sendFolder(dir, ctx.queue.blobs)));
    return f;
  };

  const script: StateExecutor = {
    async execute(req) {
      const path = await req.scope.scriptPath(req.file);
      const sent = await folderOf(dirname(path));
      const job: JobRequest = {
        ...base(req, 'script'),
        folder: sent.manifest,
        script: basename(path),
      };
      // Redis may have lost the files (a restart without persistence): they are sent again.
      const prepare = async () => {
        if ((await ctx.queue.blobs.missing(sent.shas)) > 0) {
          folders.delete(dirname(path));
          await folderOf(dirname(path));
        }
      };
      return (await run(job, prepare, req.signal)).execution!;
    },
  };

  const markdown: StateExecutor = {
    async execute(req): Promise<Execution> {
      const where = req.scope.display(req.file);
      const parent = parentOf(req.session, where);
      const transcripts: TranscriptRef[] = [];
      const texts: Buffer[] = [];
      const baseOf = backendOf(req.backend).sessions.baseOf;
      // The session's file, and those it cannot be resumed without (a Codex fork's parents).
      for (let id = parent; id !== undefined && transcripts.length < 100;) {
        const file = join(ctx.transcripts, `${safeSegment(id, 'the session id', where)}.jsonl`);
        if (!existsSync(file) || transcripts.some((t) => t.id === id)) break;
        const text = await readFile(file);
        const name = join(ctx.transcripts, `${id}.name`);
        transcripts.push({
          id,
          sha: sha256(text),
          ...(existsSync(name) ? { name: await readFile(name, 'utf8') } : {}),
        });
        texts.push(text);
        id = baseOf?.(text.toString('utf8'));
      }
      const job: JobRequest = {
        ...base(req, 'markdown'),
        prompt: req.prompt ?? '',
        session: req.session ?? { kind: 'fresh' },
        costBase: req.costBase,
        model: req.model,
        ...(req.fallbackModels?.length ? { fallbackModels: [...req.fallbackModels] } : {}),
        effort: req.effort,
        grant: req.grant,
        turns: ctx.turns,
        transcripts,
        backend: req.backend,
        ...(req.onSpend && { watchSpend: true }),
        prefer:
          (parent !== undefined ? sessionHolder.get(parent) : undefined) ??
          (req.agent.worktree ? agentHolder.get(req.agent.id) : undefined),
      };
      const prepare = async () => {
        for (const text of texts) await ctx.queue.blobs.put(text);
      };
      // A budget watching the turn stops it through req.signal: the queue cancels the job, its worker kills the turn.
      return (await run(job, prepare, req.signal, req.onSpend)).execution!;
    },

    endSession(session) {
      // Its live process is on the worker that ran its last turn.
      const holder = sessionHolder.get(session);
      if (holder !== undefined) void ctx.queue.endSession(holder, ctx.workflowId, session);
    },
  };

  const worktrees: WorktreePool = {
    // The folder is made on the worker that runs the agent, at this path mapped onto its --workdir.
    acquire: async (w, agentId) => join(worktreesDir(w.repo, ctx.workflowId), agentId),
    async finish(w, agentId): Promise<WorktreeRef> {
      const agent: AgentFields = {
        id: agentId,
        state: '',
        session: null,
        branchFrom: null,
        cwd: w.path ?? w.repo,
        attributes: {},
        input: null,
        status: 'active',
        worktree: w,
      };
      const job: JobRequest = {
        ...base(
          {
            agent,
            file: '',
            timeoutMs: 0,
            scope: { display: () => w.branch, scriptPath: async () => '' },
          },
          'worktree.finish',
        ),
        prefer: agentHolder.get(agentId),
      };
      return (await run(job, async () => undefined, new AbortController().signal)).worktree!;
    },
    // A worker keeps one folder per agent (not a pool): a joining agent's folder is its own and stays, as with `off`.
    suspend: async (w) => w,
    close: async () => undefined,
    stats: () => ({ created: 0, reused: 0, peakAlive: 0 }),
  };

  return { script, markdown, worktrees };
}
