import { randomBytes, randomUUID } from 'node:crypto';
import { freemem } from 'node:os';
import { dirname, join } from 'node:path';
import { createActor, toPromise, type InspectionEvent } from 'xstate';
import { agentMachine } from '../../machines/agent.machine.js';
import { storeFromState } from '../../machines/run-store.js';
import { supervisorMachine, type SupervisorEmitted } from '../../machines/supervisor.machine.js';
import type { RunOptions, RunStatus, WorkflowState, WorktreeRef } from '../../machines/types.js';
import { createClaudeExecutor } from '../claude/claude-executor.js';
import { findClaude } from '../claude/find-claude.js';
import { RaymondError, errorMessage } from '../errors.js';
import type { StateExecutor } from '../executors/executor.js';
import { createScriptExecutor } from '../executors/script-executor.js';
import { createInlineLanguageService, createPoolLanguageService } from '../language/language-service.js';
import { isMarkdown } from '../scope/extensions.js';
import { openScope, type Scope } from '../scope/scope.js';
import { DebugLog } from '../state/debug-log.js';
import { createPersister, type PersisterStats } from '../state/persister.js';
import { acquireLock } from '../state/run-lock.js';
import { checkWorkflowId, lockFilePath, prepareStateFile, readStateFile, stateFilePath } from '../state/state-file.js';
import { describeStep } from './describe.js';
import type { Reporter } from './reporter.js';
import { createRunStep } from './run-step.js';

/** How a run behaves; stored in the state file (but `debug` and `claudeBin`). */
export interface RunSettings {
  maxParallel: number;
  timeoutSeconds: number;
  /** USD; 0 means unlimited. */
  budgetUsd: number;
  model?: string | undefined;
  effort?: string | undefined;
  skipPermissions: boolean;
  /** `--claude-bin`: the Claude Code executable; default `claude` on PATH. */
  claudeBin?: string | undefined;
  /** Write `.raymond/debug/<id>/`. */
  debug: boolean;
}

interface CommonRequest {
  /** Folder of state files (`.raymond/state` by default). */
  stateDir: string;
  reporter: Reporter;
  /** `pool` (default) runs parsing and rendering on worker threads. */
  language?: 'pool' | 'inline';
  /** Aborted: start no new step, let running ones finish. */
  drain?: AbortSignal;
  /** Aborted: stop every step now. Either way the run stays resumable. */
  kill?: AbortSignal;
  /** Replaces the Claude Code executor (benchmarks, tests). */
  markdown?: StateExecutor;
  stats?: PersisterStats;
  /** Called once the run is under way with a way to read its live figures. */
  onProgress?: (read: () => RunProgress) => void;
  /** Receives every inspection event of the actor system (`--inspect`, `--trace`). */
  inspect?: ((event: InspectionEvent) => void) | undefined;
}

/** Live figures of a run, for the terminal view. */
export interface RunProgress {
  /** Agent machine frames per state: top frames idle or invoking, callers awaiting their callee. */
  counts: { idle: number; invoking: number; 'awaiting-child': number; terminated: number; paused: number };
  costUsd: number;
  budgetUsd: number;
  startedAt: number;
  steps: number;
}

export interface StartRequest extends CommonRequest {
  path: string;
  input?: string | undefined;
  workflowId?: string | undefined;
  /** Working directory of the main agent. */
  cwd: string;
  settings: RunSettings;
}

export interface ResumeRequest extends CommonRequest {
  workflowId: string;
  /** Settings given again on the command line; the rest come from the state file. */
  overrides: Partial<RunSettings>;
  /** Resume even though state files changed since the run started. */
  allowChanges?: boolean;
}

export interface RunOutcome {
  workflowId: string;
  status: RunStatus;
  totalCostUsd: number;
  results: Record<string, string>;
  error?: string;
  stateFile: string;
  /** Agents paused on a usage limit with a known reset time, if that is all that is left. */
  waitUntil?: number;
  /** Every agent's worktree, as it stands at the end of the run. */
  worktrees: Array<WorktreeRef & { agent: string }>;
  /** What this process wrote to the state folder. */
  stateWrites: { writes: number; bytes: number; snapshots: number };
}

function toOptions(s: RunSettings): RunOptions {
  return { timeout_seconds: s.timeoutSeconds, max_parallel: s.maxParallel, budget_usd: s.budgetUsd, model: s.model ?? null, effort: s.effort ?? null, dangerously_skip_permissions: s.skipPermissions };
}

function fromOptions(o: RunOptions): Omit<RunSettings, 'debug' | 'claudeBin'> {
  return { timeoutSeconds: o.timeout_seconds, maxParallel: o.max_parallel, budgetUsd: o.budget_usd, model: o.model ?? undefined, effort: o.effort ?? undefined, skipPermissions: o.dangerously_skip_permissions };
}

/** Each Claude Code process takes ~230 MB: allow a markdown step per ~300 MB of free memory. */
const MARKDOWN_STEP_BYTES = 300 * 2 ** 20;

function markdownSlots(): number {
  return Math.max(1, Math.floor(freemem() / MARKDOWN_STEP_BYTES));
}

/**
 * A run that begins with a markdown state needs Claude Code: say so before
 * anything is written. (A folder may hold markdown files no state reaches,
 * a README say, so other runs find out at their first markdown step.)
 */
function checkClaude(first: string[], settings: RunSettings, markdown: StateExecutor | undefined): void {
  if (!markdown && first.some(isMarkdown)) findClaude(settings.claudeBin);
}

/** Starts a new run of the workflow at `req.path`. */
export async function startWorkflow(req: StartRequest): Promise<RunOutcome> {
  const scope = await openScope(req.path);
  try {
    const fingerprints = await scope.fingerprints();
    checkClaude([scope.ref.entry], req.settings, req.markdown);
    const workflowId = req.workflowId ?? `${scope.name}-${randomBytes(4).toString('hex')}`;
    checkWorkflowId(workflowId);
    const stateFile = await prepareStateFile(req.stateDir, workflowId);
    const release = acquireLock(lockFilePath(req.stateDir, workflowId), workflowId);
    try {
      const now = new Date().toISOString();
      const state: WorkflowState = {
        version: 1,
        workflow_id: workflowId,
        status: 'running',
        scope: { ...scope.ref, fingerprints },
        started_at: now,
        updated_at: now,
        options: toOptions(req.settings),
        total_cost_usd: 0,
        fork_counters: {},
        session_costs: {},
        agents: [{ id: 'main', state: scope.ref.entry, session: null, branchFrom: null, next_session: randomUUID(), stack: [], cwd: req.cwd, attributes: {}, input: req.input ?? null, status: 'active' }],
        results: {},
      };
      return await execute(state, scope, stateFile, req.settings, req);
    } finally {
      release();
    }
  } finally {
    await scope.dispose();
  }
}

/** Continues a run from its state file: every live agent re-runs its current state. */
export async function resumeWorkflow(req: ResumeRequest): Promise<RunOutcome> {
  checkWorkflowId(req.workflowId);
  const stateFile = stateFilePath(req.stateDir, req.workflowId);
  const state = await readStateFile(stateFile, req.workflowId);
  const release = acquireLock(lockFilePath(req.stateDir, req.workflowId), req.workflowId);
  try {
    const live = state.agents.filter((a) => a.status !== 'terminated');
    if (live.length === 0) {
      throw new RaymondError('ERR_STATE_FILE', `run ${req.workflowId} has ${state.status === 'completed' ? 'completed' : 'no live agent'}; nothing to resume`, { file: stateFile });
    }
    const scope = await openScope(state.scope.path).catch((err: unknown) => {
      throw new RaymondError('ERR_WORKFLOW_CHANGED', `the workflow of run ${req.workflowId} is gone (${errorMessage(err)}); restore it to resume`, { file: stateFile });
    });
    try {
      if (!req.allowChanges) await checkUnchanged(scope, state);
      const settings: RunSettings = { ...fromOptions(state.options), debug: true, ...stripUndefined(req.overrides) };
      checkClaude(live.map((a) => a.state), settings, req.markdown);
      const resumed: WorkflowState = {
        ...state,
        status: 'running',
        options: toOptions(settings),
        agents: state.agents.map((a) => {
          if (a.status === 'terminated') return a;
          const { error: _e, resets_at: _r, ...rest } = a;
          return { ...rest, status: 'active' as const };
        }),
      };
      delete resumed.error;
      return await execute(resumed, scope, stateFile, settings, req);
    } finally {
      await scope.dispose();
    }
  } finally {
    release();
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

async function checkUnchanged(scope: Scope, state: WorkflowState): Promise<void> {
  const before = state.scope.fingerprints;
  if (!before) return;
  const now = await scope.fingerprints();
  for (const [file, hash] of Object.entries(before)) {
    const what = now[file] === undefined ? 'was removed' : now[file] !== hash ? 'was edited' : undefined;
    if (what) {
      throw new RaymondError('ERR_WORKFLOW_CHANGED', `${file} ${what} since run ${state.workflow_id} started; restore it, or resume with --allow-changes to use the workflow as it is now`, { file: scope.display(file) });
    }
  }
}

/**
 * The composition root: provides the side-effecting actors (step runner,
 * persister) to the pure statecharts and runs the supervisor until every
 * agent has terminated or paused, one failed, or the run was stopped.
 */
async function execute(state: WorkflowState, scope: Scope, stateFile: string, settings: RunSettings, req: CommonRequest): Promise<RunOutcome> {
  const workflowId = state.workflow_id;
  const language = req.language === 'inline' ? createInlineLanguageService() : createPoolLanguageService();
  const debug = settings.debug ? new DebugLog(join(dirname(req.stateDir), 'debug', workflowId), (t) => req.reporter.warn(t)) : undefined;
  try {
    const store = storeFromState(state);
    const stats = req.stats ?? { writes: 0, bytes: 0, snapshots: 0 };
    const warned = new Set<string>();
    const runStep = createRunStep({
      workflowId,
      scope,
      language,
      script: createScriptExecutor(),
      markdown: req.markdown ?? createClaudeExecutor({ bin: settings.claudeBin, skipPermissions: settings.skipPermissions, reporter: req.reporter }),
      timeoutMs: settings.timeoutSeconds * 1000,
      reporter: req.reporter,
      model: settings.model,
      effort: settings.effort,
      // Read-only view of the supervisor's ledger; only the supervisor writes it.
      sessionCost: (session) => store.meta.session_costs[session],
      forkCounter: (agentId) => store.meta.fork_counters[agentId] ?? 0,
      warnOnce: (text) => {
        if (!warned.has(text)) req.reporter.warn(text);
        warned.add(text);
      },
      debug,
    });
    const machine = supervisorMachine.provide({
      actors: { agent: agentMachine.provide({ actors: { runStep } }), persister: createPersister(stateFile, stats) },
    });
    const actor = createActor(machine, {
      input: { store, maxParallel: settings.maxParallel, maxMarkdown: markdownSlots() },
      id: 'supervisor',
      systemId: 'supervisor',
      ...(req.inspect ? { inspect: req.inspect } : {}),
    });
    let steps = 0;
    const startedAt = Date.now();
    actor.on('*', (e) => {
      if (e.type === 'report.step') steps++;
      report(req.reporter, debug, store.meta.total_cost_usd, e as SupervisorEmitted);
    });
    req.onProgress?.(() => {
      const counts = { idle: 0, invoking: actor.getSnapshot().context.running, 'awaiting-child': 0, terminated: 0, paused: 0 };
      for (const a of store.agents.values()) {
        if (a.status === 'active') {
          counts.idle++;
          counts['awaiting-child'] += a.stack.length;
        } else if (a.status === 'paused') counts.paused++;
        else counts.terminated++;
      }
      counts.idle = Math.max(0, counts.idle - counts.invoking);
      return { counts, costUsd: store.meta.total_cost_usd, budgetUsd: settings.budgetUsd, startedAt, steps };
    });
    const drain = () => actor.send({ type: 'run.drain' });
    const kill = () => actor.send({ type: 'run.interrupt' });
    req.drain?.addEventListener('abort', drain, { once: true });
    req.kill?.addEventListener('abort', kill, { once: true });
    actor.start();
    if (req.drain?.aborted) drain();
    if (req.kill?.aborted) kill();
    const output = await toPromise(actor).finally(() => {
      req.drain?.removeEventListener('abort', drain);
      req.kill?.removeEventListener('abort', kill);
    });
    const worktrees = [...store.agents.values()].filter((a) => a.worktree).map((a) => ({ agent: a.id, ...a.worktree! }));
    const outcome: RunOutcome = { workflowId, status: output.status, totalCostUsd: store.meta.total_cost_usd, results: { ...store.meta.results }, stateFile, worktrees, stateWrites: { ...stats } };
    if (output.error !== undefined) outcome.error = output.error;
    const left = [...store.agents.values()].filter((a) => a.status === 'active' || a.status === 'paused');
    if (output.status === 'paused' && left.length > 0 && left.every((a) => a.status === 'paused' && a.resets_at !== undefined)) {
      outcome.waitUntil = Math.max(...left.map((a) => a.resets_at!));
    }
    return outcome;
  } finally {
    await language.close();
    await debug?.close();
  }
}

function report(reporter: Reporter, debug: DebugLog | undefined, total: number, e: SupervisorEmitted): void {
  switch (e.type) {
    case 'report.started':
      reporter.started(e.agentId, e.state);
      break;
    case 'report.step': {
      const line = describeStep(e);
      reporter.step(line);
      const to = e.record.status === 'terminated' ? '(terminated)' : e.record.state;
      debug?.transition(`[${e.agentId}] ${e.from} -> ${to} (${e.decision.kind}) cost=$${e.costUsd.toFixed(6)} total=$${total.toFixed(6)} session=${e.record.session ?? '-'} depth=${e.record.stack.length}`);
      break;
    }
    case 'report.failed': {
      const message = errorMessage(e.error);
      const paused = (e.error as { pauses?: unknown } | null)?.pauses === true;
      if (paused) reporter.warn(`[${e.agentId}] paused: ${message}`);
      debug?.transition(`[${e.agentId}] ${e.state} ${paused ? 'paused' : 'failed'}: ${message}`);
      reporter.debug(`[${e.agentId}] ${e.state} failed: ${e.error instanceof Error ? (e.error.stack ?? e.error.message) : String(e.error)}`);
      break;
    }
  }
}
