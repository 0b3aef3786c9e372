import { randomBytes, randomUUID } from 'node:crypto';
import { access } from 'node:fs/promises';
import { CONTINUE_LATEST } from '../executors/executor.js';
import { backendSettingValues, processDefaults } from '../settings/setting-values.js';
import type { StoredAgent, WorkflowState } from '../../machines/types.js';
import { RaymondError, formatError } from '../errors.js';
import { openScope, resumeSpecifier, type Scope } from '../scope/scope.js';
import { ScopeSet } from '../scope/scope-set.js';
import { acquireLock } from '../state/run-lock.js';
import {
  checkWorkflowId,
  lockFilePath,
  prepareStateFile,
  readStateFile,
  refuseExisting,
  removeLeftoverTemps,
  stateFilePath,
} from '../state/state-file.js';
import { checkStoredStates } from './stored-states.js';
import { composeRun } from './compose-run.js';
import type { RunHooks, RunOutcome } from './run-types.js';
import { applyResumeAnswers, type ResumeAnswers } from './resume-answers.js';
import { checkBackend } from './run-preflight.js';
import {
  fromOptions,
  resumeQueue,
  toOptions,
  type ResumeOverrides,
  type RunSettings,
} from '../settings/run-settings.js';

interface CommonRequest extends RunHooks {
  /** Folder of state files (`.raymond/state` by default). */
  stateDir: string;
}

export interface StartRequest extends CommonRequest {
  path: string;
  input?: string;
  workflowId?: string;
  /** Working directory of the main agent. */
  cwd: string;
  settings: RunSettings;
  /** `--continue-session`: the main agent's first markdown turn branches from the user's newest session in `cwd`. */
  continueSession?: boolean;
  /** `path` already opened by the caller, who disposes of it: the workflow is opened once per command. */
  scope?: Scope;
}

export interface ResumeRequest extends CommonRequest {
  workflowId: string;
  /** Settings given again on the command line; the rest come from the state file. */
  overrides: ResumeOverrides;
  /** Resume even though state files changed since the run started. */
  allowChanges?: boolean;
  /** Answers to pending asks (`--input`, `--answer`). */
  answers?: ResumeAnswers;
  /** Whether a person is at a terminal: a run stored with `--on-ask=prompt` resumed without one refuses asks instead. */
  interactive?: boolean;
}

/** Starts a new run of the workflow at `req.path`. */
export async function startWorkflow(req: StartRequest): Promise<RunOutcome> {
  const scope = req.scope ?? (await openScope(req.path));
  try {
    const fingerprints = await scope.fingerprints();
    await checkBackend(scope, [scope.ref.entry], req.settings, req.markdown);
    const workflowId = req.workflowId ?? `${scope.name}-${randomBytes(4).toString('hex')}`;
    checkWorkflowId(workflowId);
    const stateFile = await prepareStateFile(req.stateDir, workflowId);
    const release = acquireLock(lockFilePath(req.stateDir, workflowId), workflowId);
    try {
      // Again under the lock: a start of the same id may have run to the end between the first look and the lock.
      await refuseExisting(stateFile, workflowId);
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
        agents: [
          {
            id: 'main',
            state: scope.ref.entry,
            session: null,
            branchFrom: req.continueSession ? CONTINUE_LATEST : null,
            next_session: randomUUID(),
            stack: [],
            cwd: req.cwd,
            attributes: {},
            input: req.input ?? null,
            status: 'active',
          },
        ],
        results: {},
      };
      await removeLeftoverTemps(stateFile);
      return await runInScopes(scope, (scopes) =>
        composeRun({
          state,
          scopes,
          stateFile,
          settings: req.settings,
          hooks: req,
          resumed: false,
        }),
      );
    } finally {
      release();
    }
  } finally {
    if (!req.scope) await scope.dispose();
  }
}

/** Continues a run from its state file: every live agent re-runs its current state. */
export async function resumeWorkflow(req: ResumeRequest): Promise<RunOutcome> {
  const stateFile = stateFilePath(req.stateDir, req.workflowId);
  // A missing run is refused before a lock file is made for it.
  await access(stateFile).catch(() => readStateFile(stateFile, req.workflowId));
  const release = acquireLock(lockFilePath(req.stateDir, req.workflowId), req.workflowId);
  try {
    // Read only once the lock is ours: a copy read before could predate what the previous holder wrote last.
    const state = await readStateFile(stateFile, req.workflowId);
    // A worker whose failure a <join> received was handled there: it stays failed.
    const live = state.agents.filter((a) => a.status !== 'terminated' && a.joined === undefined);
    if (live.length === 0) {
      throw new RaymondError(
        'ERR_STATE_FILE',
        `run ${req.workflowId} has ${state.status === 'completed' ? 'completed' : 'no live agent'}; nothing to resume`,
        { file: stateFile },
      );
    }
    const scope = await openScope(resumeSpecifier(state.scope)).catch((err: unknown) => {
      const what =
        err instanceof RaymondError && err.code.startsWith('ERR_YAML_')
          ? 'no longer valid'
          : 'gone';
      throw new RaymondError(
        'ERR_WORKFLOW_CHANGED',
        `the workflow of run ${req.workflowId} is ${what} (${formatError(err)}); restore it to resume`,
        { file: stateFile },
      );
    });
    try {
      if (!req.allowChanges) await checkUnchanged(scope, state);
      const own = fromOptions(state.options);
      const fresh = processDefaults({ queued: own.queue !== undefined, interactive: false });
      const settings: RunSettings = {
        ...own,
        // What this process takes afresh, where the resume's own flags and config give nothing.
        debug: fresh.debug === true,
        history: fresh.history === true,
        backendSettings: backendSettingValues(fresh),
        ...stripUndefined(req.overrides),
        queue: resumeQueue(own.queue, req.overrides.queue),
      };
      // Asked at a terminal when it started, resumed where nobody can answer: refuse asks rather than wait forever.
      if (
        req.overrides.onAsk === undefined &&
        settings.onAsk === 'prompt' &&
        req.interactive === false
      )
        settings.onAsk = 'reject';
      const answered = applyResumeAnswers(
        state.agents,
        req.answers ?? {},
        req.workflowId,
        stateFile,
      );
      for (const text of answered.notes) req.onEvent({ type: 'warning', text });
      await checkBackend(
        scope,
        live.map((a) => a.state),
        settings,
        req.markdown,
      );
      const resumed: WorkflowState = {
        ...state,
        status: 'running',
        options: toOptions(settings),
        agents: answered.agents.map((a) => {
          if (a.status === 'terminated' || a.joined !== undefined) return a;
          const { error: _e, resets_at: _r, ...rest } = a;
          return { ...rest, status: 'active' as const };
        }),
      };
      delete resumed.error;
      await removeLeftoverTemps(stateFile);
      return await runInScopes(scope, async (scopes) => {
        await scopes.preload(scopeKeys(live)).catch((err: unknown) => {
          throw new RaymondError(
            'ERR_WORKFLOW_CHANGED',
            `a workflow that run ${req.workflowId}'s agents are in is gone (${formatError(err)}); restore it to resume`,
            { file: stateFile },
          );
        });
        checkStoredStates(live, scopes, stateFile, req.workflowId);
        return composeRun({
          state: resumed,
          scopes,
          stateFile,
          settings,
          hooks: req,
          resumed: true,
          answered: answered.answered,
          gateAnswers: answered.gates,
        });
      });
    } finally {
      await scope.dispose();
    }
  } finally {
    release();
  }
}

/** Runs with the run's scope and every scope its cross-workflow tags open, removing what those extracted after. */
async function runInScopes<T>(main: Scope, run: (scopes: ScopeSet) => Promise<T>): Promise<T> {
  const scopes = new ScopeSet(main);
  try {
    return await run(scopes);
  } finally {
    await scopes.dispose();
  }
}

/** The scopes live agents and the callers on their stacks are in, other than the run's own. */
function scopeKeys(agents: readonly StoredAgent[]): string[] {
  const keys: string[] = [];
  for (const a of agents) {
    if (a.scope) keys.push(a.scope);
    for (const f of a.stack) if (f.workflow?.scope) keys.push(f.workflow.scope);
  }
  return keys;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

async function checkUnchanged(scope: Scope, state: WorkflowState): Promise<void> {
  const before = state.scope.fingerprints;
  if (!before) return;
  const now = await scope.fingerprints();
  for (const [file, hash] of Object.entries(before)) {
    const what =
      now[file] === undefined ? 'was removed' : now[file] !== hash ? 'was edited' : undefined;
    if (what) {
      throw new RaymondError(
        'ERR_WORKFLOW_CHANGED',
        `${file} ${what} since run ${state.workflow_id} started; restore it, or resume with --allow-changes to use the workflow as it is now`,
        { file: scope.display(file) },
      );
    }
  }
}
