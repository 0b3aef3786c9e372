import { randomBytes } from 'node:crypto';
import { createActor, toPromise } from 'xstate';
import { agentMachine } from '../../machines/agent.machine.js';
import { storeFromState } from '../../machines/run-store.js';
import { supervisorMachine, type SupervisorEmitted } from '../../machines/supervisor.machine.js';
import type { RunStatus, WorkflowState } from '../../machines/types.js';
import type { StateExecutor } from '../executors/executor.js';
import { createScriptExecutor } from '../executors/script-executor.js';
import { createClaudeExecutor } from '../claude/claude-executor.js';
import { createInlineLanguageService, createPoolLanguageService, type LanguageService } from '../language/language-service.js';
import { openScope } from '../scope/scope.js';
import { createPersister, type PersisterStats } from '../state/persister.js';
import { checkWorkflowId, prepareStateFile } from '../state/state-file.js';
import { describeStep } from './describe.js';
import type { Reporter } from './reporter.js';
import { createRunStep } from './run-step.js';

export interface RunRequest {
  path: string;
  input?: string | undefined;
  workflowId?: string | undefined;
  /** Folder of state files (`.raymond/state` by default). */
  stateDir: string;
  maxParallel: number;
  timeoutSeconds: number;
  reporter: Reporter;
  /** Working directory of the main agent. */
  cwd: string;
  /** `pool` (default) runs parsing and rendering on worker threads. */
  language?: 'pool' | 'inline';
  /** Aborting it stops every step; the run stays resumable. */
  signal?: AbortSignal;
  /** USD; 0 means unlimited. */
  budgetUsd: number;
  model?: string | undefined;
  effort?: string | undefined;
  skipPermissions?: boolean | undefined;
  /** `--claude-bin`: the Claude Code executable; default `claude` on PATH. */
  claudeBin?: string | undefined;
  /** Replaces the Claude Code executor (benchmarks, tests). */
  markdown?: StateExecutor;
  stats?: PersisterStats;
}

export interface RunOutcome {
  workflowId: string;
  status: RunStatus;
  totalCostUsd: number;
  results: Record<string, string>;
  error?: string;
  stateFile: string;
}

function initialState(workflowId: string, scope: WorkflowState['scope'], req: RunRequest): WorkflowState {
  const now = new Date().toISOString();
  return {
    version: 1,
    workflow_id: workflowId,
    status: 'running',
    scope,
    started_at: now,
    updated_at: now,
    options: {
      timeout_seconds: req.timeoutSeconds,
      max_parallel: req.maxParallel,
      budget_usd: req.budgetUsd,
      model: req.model ?? null,
      effort: req.effort ?? null,
      dangerously_skip_permissions: !!req.skipPermissions,
    },
    total_cost_usd: 0,
    fork_counters: {},
    session_costs: {},
    agents: [{ id: 'main', state: scope.entry, session: null, branchFrom: null, stack: [], cwd: req.cwd, attributes: {}, input: req.input ?? null, status: 'active' }],
    results: {},
  };
}

/**
 * The composition root: opens the scope, provides the side-effecting actors
 * (step runner, persister) to the pure statecharts, and runs the supervisor
 * until every agent has terminated, one failed, or the run was interrupted.
 */
export async function runWorkflow(req: RunRequest): Promise<RunOutcome> {
  const scope = await openScope(req.path);
  const workflowId = req.workflowId ?? `${scope.name}-${randomBytes(4).toString('hex')}`;
  checkWorkflowId(workflowId);
  const stateFile = await prepareStateFile(req.stateDir, workflowId);
  const language: LanguageService = req.language === 'inline' ? createInlineLanguageService() : createPoolLanguageService();
  try {
    const store = storeFromState(initialState(workflowId, scope.ref, req));
    const warned = new Set<string>();
    const runStep = createRunStep({
      workflowId,
      scope,
      language,
      script: createScriptExecutor(),
      markdown: req.markdown ?? createClaudeExecutor({ bin: req.claudeBin, skipPermissions: !!req.skipPermissions, reporter: req.reporter }),
      timeoutMs: req.timeoutSeconds * 1000,
      reporter: req.reporter,
      model: req.model,
      effort: req.effort,
      // Read-only view of the supervisor's ledger; only the supervisor writes it.
      sessionCost: (session) => store.meta.session_costs[session],
      warnOnce: (text) => {
        if (!warned.has(text)) req.reporter.warn(text);
        warned.add(text);
      },
    });
    const machine = supervisorMachine.provide({
      actors: { agent: agentMachine.provide({ actors: { runStep } }), persister: createPersister(stateFile, req.stats) },
    });
    const actor = createActor(machine, { input: { store, maxParallel: req.maxParallel }, systemId: 'supervisor' });
    actor.on('*', (e) => report(req.reporter, e as SupervisorEmitted));
    const interrupt = () => actor.send({ type: 'run.interrupt' });
    req.signal?.addEventListener('abort', interrupt, { once: true });
    actor.start();
    if (req.signal?.aborted) interrupt();
    const output = await toPromise(actor).finally(() => req.signal?.removeEventListener('abort', interrupt));
    const outcome: RunOutcome = { workflowId, status: output.status, totalCostUsd: store.meta.total_cost_usd, results: { ...store.meta.results }, stateFile };
    if (output.error !== undefined) outcome.error = output.error;
    return outcome;
  } finally {
    await language.close();
    await scope.dispose();
  }
}

function report(reporter: Reporter, e: SupervisorEmitted): void {
  switch (e.type) {
    case 'report.started':
      reporter.started(e.agentId, e.state);
      break;
    case 'report.step':
      reporter.step(describeStep(e));
      break;
    case 'report.failed': {
      const paused = (e.error as { pauses?: unknown } | null)?.pauses === true;
      if (paused) reporter.warn(`[${e.agentId}] paused: ${e.error instanceof Error ? e.error.message : String(e.error)}`);
      reporter.debug(`[${e.agentId}] ${e.state} failed: ${e.error instanceof Error ? (e.error.stack ?? e.error.message) : String(e.error)}`);
      break;
    }
  }
}

