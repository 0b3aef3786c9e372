import { basename, dirname, join } from 'node:path';
import { createActor, toPromise } from 'xstate';
import type { RunEvent } from '../../machines/run-events.js';
import { storeFromState } from '../../machines/run-store.js';
import { stepRunner } from '../../machines/step-runner.js';
import { supervisorMachine } from '../../machines/supervisor.machine.js';
import { pendingAsks } from '../../machines/asks.js';
import type { WorkflowState } from '../../machines/types.js';
import { createAskClock, dueAsks } from './ask-clock.js';
import { createScriptExecutor } from '../executors/script-executor.js';
import type { StateExecutor } from '../executors/executor.js';
import { createSpawnerPool } from '../executors/spawner-pool.js';
import { createValueFiles } from '../executors/value-files.js';
import {
  createInlineLanguageService,
  createLanguageService,
  createPoolLanguageService,
} from '../language/language-service.js';
import type { ScopeSet } from '../scope/scope-set.js';
import { DebugLog } from '../state/debug-log.js';
import { createPersister } from '../state/persister.js';
import { frameCounts } from './run-progress.js';
import { markdownSlots, type RunSettings } from '../settings/run-settings.js';
import { markdownCap } from './markdown-cap.js';
import { agentExecutor } from './agent-executor.js';
import { createRunStep } from './step-actor.js';
import { createTaskFolders, withTaskFolders } from './task-folders.js';
import { projectRootOf } from '../task-folder-pattern.js';
import { createWorktreePool } from '../worktrees/worktree-pool.js';
import { createWorktreeStarts } from '../worktrees/step-start.js';
import { errorMessage } from '../errors.js';
import type { QueuedRun } from './queued-run.js';
import type { RunHooks, RunOutcome } from './run-types.js';
import { gateForecaster, reservations } from './cost-gate.js';
import { budgetMeterFor } from './budget-meter.js';
import { openHistory } from './run-history.js';
import type { HistoryWriter } from '../history/history-writer.js';
import { openRunTracer, type RunTracer } from '../telemetry/run-tracer.js';

/** A workflow's short name, as ray's JSON gives it: a folder's name (for a run started at a state file, its folder's). */
function workflowName(scope: ScopeSet['main']): string {
  return scope.ref.kind === 'file' ? basename(dirname(scope.ref.path)) : scope.name;
}

/** What composeRun runs: the run's state as it stands, its workflows, where it is stored, and how it behaves. */
export interface ComposeRunOptions {
  /** The run's state: fresh for a new run, as read (and answered) for a resume. */
  state: WorkflowState;
  scopes: ScopeSet;
  stateFile: string;
  settings: RunSettings;
  hooks: RunHooks;
  /** Whether this continues a stored run (`run.started` says so). */
  resumed: boolean;
  /** Asks a `--resume` answered before the run went on: written to the debug log, as live answers are. */
  answered?: ReadonlyArray<{ agentId: string; askId: string; text: string }>;
  /** Answers a `--resume` gave to cost gates: the supervisor applies them before any agent runs. */
  gateAnswers?: ReadonlyArray<{ askId: string; text: string }>;
}

/**
 * The composition root: provides the side-effecting actors (step runner,
 * persister) to the pure statecharts, joins the supervisor's events and the
 * steps' into one stream, and runs the supervisor until every agent has
 * terminated or paused, one failed, or the run was stopped.
 */
export async function composeRun(options: ComposeRunOptions): Promise<RunOutcome> {
  const { state, scopes, stateFile, settings, hooks, resumed } = options;
  const workflowId = state.workflow_id;
  const startedAt = Date.now();
  let steps = 0;
  let debug: DebugLog | undefined;
  let history: HistoryWriter | undefined;
  let tracer: RunTracer | undefined;
  const cap = markdownCap(!!settings.queue);
  const budgetMeter = budgetMeterFor(settings, state.total_cost_usd, state.agents);
  const emit = (e: RunEvent) => {
    budgetMeter?.event(e);
    if (e.type === 'step.done') steps++;
    else if (e.type === 'width.changed') cap.noted(e);
    debug?.event(e);
    history?.event(e);
    tracer?.event(e);
    hooks.onEvent(e);
  };
  const warn = (text: string) => emit({ type: 'warning', text });
  const spawners = createSpawnerPool();
  const values = createValueFiles();
  const turnSlots = markdownSlots();
  // The run's own agent executor, closed at its end (a backend's live processes go with it).
  let agentTurns: StateExecutor | undefined;
  // --queue: steps run on the workers; this process keeps everything else.
  let queued: QueuedRun | undefined;
  const language =
    hooks.language === 'inline'
      ? createInlineLanguageService()
      : hooks.language === 'pool'
        ? createPoolLanguageService()
        : createLanguageService();
  if (settings.debug)
    debug = new DebugLog(join(dirname(dirname(stateFile)), 'debug', workflowId), warn);
  if (settings.history)
    history = await openHistory(
      state,
      stateFile,
      settings.queue ? 'queued' : (hooks.source ?? 'local'),
      resumed,
      warn,
    );
  const input = state.agents[0]?.input;
  if (!resumed && typeof input === 'string') debug?.input(input);
  for (const a of options.answered ?? [])
    debug?.event({ type: 'ask.answered', ...a, expired: false });
  try {
    tracer = await openRunTracer(settings.otelEndpoint, warn);
    if (settings.queue) {
      const { openQueue } = await import('./queued-run.js');
      queued = await openQueue({ queue: settings.queue, settings, workflowId, stateFile, emit });
    }
    const worktrees = queued?.worktrees ?? createWorktreePool(workflowId);
    const tasks = createTaskFolders(
      projectRootOf(stateFile),
      settings.taskFolderPattern,
      workflowId,
    );
    const store = storeFromState({ ...state, agents: withTaskFolders(state.agents, tasks) });
    store.defaultTaskFolder = (id) => tasks.path(id, 1);
    const stats = hooks.stats ?? { writes: 0, bytes: 0, snapshots: 0 };
    const warned = new Set<string>();
    const forecaster = await gateForecaster(settings, hooks, scopes.main, stateFile, state, emit);
    const runStep = createRunStep({
      workflowId,
      scopes,
      language,
      // RAYMOND_STATE_DIR: where this run's state is, for a script that calls Raymond back about it (`raymond merge`).
      script: (hooks.script ?? ((real: StateExecutor) => real))(
        queued?.script ??
          createScriptExecutor(spawners, values, {
            ...settings.environment,
            RAYMOND_STATE_DIR: dirname(stateFile),
          }),
      ),
      markdown:
        hooks.markdown ??
        queued?.markdown ??
        (agentTurns = agentExecutor(settings, emit, settings.environment, {
          slots: turnSlots,
          onWidth: cap.onWidth,
        })),
      timeoutMs: settings.timeoutSeconds * 1000,
      emit,
      model: settings.model,
      fallbackModels: settings.fallbackModels,
      effort: settings.effort,
      grant: settings.grant,
      warnOnce: (text) => {
        if (!warned.has(text)) warn(text);
        warned.add(text);
      },
      debug,
      worktrees,
      worktreeMode: settings.worktreeMode,
      // Under --queue the folders are the workers': they keep the steps' starts.
      ...(queued ? {} : { starts: createWorktreeStarts(resumed) }),
      tasks,
      onAsk: settings.onAsk,
      traceEnv: tracer && ((agentId) => tracer!.env(agentId)),
      forecaster,
      budgetMeter,
    });
    const machine = supervisorMachine.provide({
      actors: {
        steps: stepRunner(runStep),
        persister: createPersister(stateFile, stats, warn),
      },
    });
    // Before the actor exists: making it runs the supervisor's first actions (due asks, a resume's answers to
    // cost gates), whose events then tell the progress what they changed.
    const counts = frameCounts(store.agents.values());
    const actor = createActor(machine, {
      input: {
        store,
        maxParallel: settings.maxParallel,
        maxMarkdown: queued ? settings.maxParallel : turnSlots,
        stopWhenAsking: settings.onAsk === 'pause',
        dueAsks: dueAsks(store.agents.values()),
        gateStops: settings.onAsk === 'reject',
        gateAnswers: options.gateAnswers ?? [],
        ...(forecaster && { reserve: reservations(forecaster) }),
      },
      id: 'supervisor',
      systemId: 'supervisor',
      ...(hooks.inspect ? { inspect: hooks.inspect } : {}),
    });
    cap.attach((e) => actor.send(e));
    const clock = createAskClock((agentId, askId) =>
      actor.send({ type: 'ask.expire', agentId, askId }),
    );
    actor.on('*', (event) => {
      // One emit for a fork's workers (machines/supervisor-types.ts); the stream has one event each.
      if (event.type === 'workers.forked') {
        const { parentId } = event;
        for (const { id, state, attributes, budgets } of event.workers)
          emit(
            // Built without a spread: with one, resumes of a killed 10,000-worker fork re-ran 9-11 workers (at most 8 before; crash-resume-10k). Measured, not yet explained.
            budgets
              ? { type: 'agent.forked', parentId, id, state, attributes, budgets }
              : { type: 'agent.forked', parentId, id, state, attributes },
          );
        return;
      }
      if (event.type === 'ask.created') clock.watch(event.ask);
      emit(event);
    });
    emit({
      type: 'run.started',
      workflowId,
      workflow: workflowName(scopes.main),
      ...(settings.name ? { name: settings.name } : {}),
      onAsk: settings.onAsk,
      resumed,
      at: startedAt,
      budgetUsd: settings.budgetUsd,
      totalCostUsd: store.meta.total_cost_usd,
      counts,
    });
    const drain = () => actor.send({ type: 'run.drain' });
    const kill = () => actor.send({ type: 'run.interrupt' });
    hooks.drain?.addEventListener('abort', drain, { once: true });
    hooks.kill?.addEventListener('abort', kill, { once: true });
    actor.start();
    // Asks already waiting when the run (re)started: shown again, and their clocks started (a due one fires at once).
    for (const ask of pendingAsks(store.agents.values())) {
      emit({ type: 'ask.pending', ask });
      clock.watch(ask);
    }
    hooks.onControl?.({ answer: (askId, text) => actor.send({ type: 'run.answer', askId, text }) });
    if (hooks.drain?.aborted) drain();
    if (hooks.kill?.aborted) kill();
    const output = await toPromise(actor).finally(() => {
      clock.close();
      hooks.drain?.removeEventListener('abort', drain);
      hooks.kill?.removeEventListener('abort', kill);
    });
    const agents = [...store.agents.values()];
    // Folders no agent holds go; the ones live agents hold stay for a resume.
    await worktrees.close().catch((err: unknown) =>
      emit({
        type: 'warning',
        text: `could not remove the run's free worktree folders: ${errorMessage(err)}`,
      }),
    );
    const agentWorktrees = agents
      .filter((a) => a.worktree)
      .map((a) => ({ agent: a.id, ...a.worktree! }));
    const outcome: RunOutcome = {
      workflowId,
      workflow: workflowName(scopes.main),
      status: output.status,
      totalCostUsd: store.meta.total_cost_usd,
      results: { ...store.meta.results },
      stateFile,
      worktrees: agentWorktrees,
      worktreePool: worktrees.stats(),
      stateWrites: { ...stats },
      asks: pendingAsks(agents),
    };
    if (output.error !== undefined) outcome.error = output.error;
    const left = agents.filter((a) => a.status === 'active' || a.status === 'paused');
    if (
      output.status === 'paused' &&
      left.length > 0 &&
      left.every((a) => a.status === 'paused' && a.resets_at !== undefined)
    ) {
      outcome.waitUntil = Math.max(...left.map((a) => a.resets_at!));
    }
    emit({
      type: 'run.finished',
      workflowId,
      status: outcome.status,
      error: outcome.error,
      totalCostUsd: outcome.totalCostUsd,
      steps,
      elapsedMs: Date.now() - startedAt,
      ...(outcome.status === 'asking' ? { asks: outcome.asks } : {}),
    });
    return outcome;
  } finally {
    await tracer?.close();
    agentTurns?.close?.();
    await queued?.close();
    await spawners.close();
    await values.close();
    await language.close();
    debug?.close();
    history?.close();
  }
}
