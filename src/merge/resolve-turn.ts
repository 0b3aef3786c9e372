import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { RunEventSink } from '../../machines/run-events.js';
import type { StoredAgent } from '../../machines/types.js';
import { backendExecutor } from '../agents/registry/backend-executor.js';
import { backendOf } from '../agents/registry/registry.js';
import { RaymondError } from '../errors.js';
import { makeFolders } from '../make-folders.js';
import type { BackendSpec } from '../executors/executor.js';

/** One resolution turn to run: the agent's session forked into the fix folder. */
export interface ResolveRequest {
  workflowId: string;
  agent: StoredAgent;
  backend: BackendSpec | undefined;
  /** The session forked from: the agent's own, or its last resolution's. */
  from: string;
  /** The folder the session ran in last (where Claude Code keeps its transcript). */
  fromCwd: string;
  /** The session's last known total cost, so the turn is charged only its own. */
  costBase: number | undefined;
  folder: string;
  prompt: string;
  skipPermissions: boolean;
  /** The run's `--model` and `--effort`, if it had them (a state's own frontmatter is not known here). */
  model?: string;
  effort?: string;
  /** The backends' settings of this machine (`--claude-bin`), by run name. */
  machineSettings?: Readonly<Record<string, unknown>>;
  timeoutMs: number;
  signal: AbortSignal;
  emit: RunEventSink;
}

/** What a resolution turn cost, and the session it made. */
export interface ResolveResult {
  session: string;
  costUsd: number;
  sessionTotal?: number;
  /** Why the turn failed, when it did (its cost is still charged). */
  error?: string;
}

/**
 * Puts the session's file where its backend resumes it from the fix
 * folder (Claude Code finds a session by the folder it runs in; pi and
 * Codex by id, wherever it is): copied there when it is elsewhere.
 */
async function placeSession(req: ResolveRequest): Promise<void> {
  const backend = backendOf(req.backend);
  const options = req.backend?.options ?? {};
  const source = backend.sessions.find(req.from, req.fromCwd, options, process.env);
  if (!source)
    throw new RaymondError(
      'ERR_AGENT_FAILED',
      `the transcript of session ${req.from} is not on this machine`,
      { file: req.fromCwd },
    );
  const dest = backend.sessions.placeFor(
    req.from,
    basename(source),
    req.folder,
    options,
    process.env,
  );
  if (dest === source || existsSync(dest)) return;
  await makeFolders(dirname(dest));
  await copyFile(source, dest);
}

/**
 * Runs one resolution turn: the agent's session resumed forked (Claude
 * Code `--resume FROM --fork-session`, pi `--fork`), as Raymond forks
 * sessions for `<call>`, so the agent's own session stays as it was. It
 * goes through the run's executors, with the run's permission setting.
 */
export async function resolveTurn(req: ResolveRequest): Promise<ResolveResult> {
  const session = randomUUID();
  // A bare `git commit` concluding the merge takes git's message instead of waiting for an editor nobody sees.
  const env = { GIT_EDITOR: 'true' };
  const executor = backendExecutor({
    skipPermissions: req.skipPermissions,
    settings: req.machineSettings ?? {},
    emit: req.emit,
    env,
  });
  try {
    await placeSession(req);
    const out = await executor.execute({
      workflowId: req.workflowId,
      agent: { ...req.agent, cwd: req.folder, session: req.from, branchFrom: null },
      file: 'merge',
      scope: {
        display: () => `raymond merge (${req.agent.id})`,
        scriptPath: () => Promise.reject(new Error('a resolution turn runs no script')),
      },
      backend: req.backend,
      prompt: req.prompt,
      session: { kind: 'branch', from: req.from, id: session },
      costBase: req.costBase,
      model: req.model,
      effort: req.effort,
      signal: req.signal,
      timeoutMs: req.timeoutMs,
    });
    return {
      session: out.session ?? session,
      costUsd: out.costUsd,
      sessionTotal: out.sessionTotal,
    };
  } catch (err) {
    if (!(err instanceof RaymondError)) throw err;
    const spent = err.details as {
      costUsd?: number;
      sessionTotal?: number | null;
      session?: string | null;
    };
    return {
      session: spent.session ?? session,
      costUsd: spent.costUsd ?? 0,
      sessionTotal: spent.sessionTotal ?? undefined,
      error: err.message,
    };
  }
}
