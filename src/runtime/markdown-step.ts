import type { StepInput, StepResult } from '../../machines/agent.machine.js';
import { backendOf } from '../agents/registry/registry.js';
import { RaymondError, formatError } from '../errors.js';
import type { Execution } from '../executors/executor.js';
import { stateModel } from './state-model.js';
import { reminder } from '../language/policy.js';
import { templateVariables } from '../language/render.js';
import { stateTimeoutMs } from '../timer-delay.js';
import {
  MAX_REMINDERS,
  MAX_RETRIES,
  REMINDABLE,
  nextTurn,
  startTurns,
  type TurnAction,
  type TurnState,
} from './markdown-turns.js';
import { resolveDecision } from './resolve-decision.js';
import { giveUp } from './turn-give-up.js';
import { figuresWarning, saneFigures, type TurnFigures } from './sane-spend.js';
import { settleWorktrees } from './step-worktree.js';
import { layeredGrant, resolveGrant } from './state-grant.js';
import { endsWarmth, freshSessions, stepDebug, type StepDependencies } from './step-context.js';
import { StepTally } from './step-tally.js';
import { Spending } from './step-spending.js';
import { VisitBudget } from './visit-budget.js';
import type { BudgetStop } from './budget-meter.js';

/** A turn's failures the step decides about (retry, fall back, wait, give up); any other fails it at once. */
const TURN_ERRORS = new Set(['ERR_AGENT_FAILED', 'ERR_USAGE_LIMIT', 'ERR_AGENT_REFUSED']);

/**
 * Runs a markdown state: renders the prompt, runs Claude Code turns, and
 * reads the transition. Which turn comes next (a retry, a reminder, the
 * reserved session resumed) is decided by the pure policy in
 * markdown-turns.ts; this function only carries it out and keeps the costs.
 */
export async function runMarkdownStep(
  deps: StepDependencies,
  input: StepInput,
  where: string,
  signal: AbortSignal,
  tally = new StepTally(),
): Promise<StepResult> {
  const agent = input.record;
  const markdown = deps.markdown;
  if (!markdown)
    throw new RaymondError(
      'ERR_STATE_UNSUPPORTED',
      'markdown states need the Claude Code executor',
      { file: where },
    );
  const scope = deps.scopes.of(agent.scope);
  const text = await scope.readText(agent.state);
  const taskFolder = deps.tasks.of(agent);
  const variables = templateVariables({
    workflowId: deps.workflowId,
    agentId: agent.id,
    input: agent.input,
    attributes: agent.attributes,
    worktree: agent.worktree,
    taskFolder,
    askId: agent.answered_ask,
  });
  const implicitVariables = {
    workflow_id: deps.workflowId,
    agent_id: agent.id,
    task_folder: taskFolder,
  };
  const prepared = await deps.language.prepare({ text, file: where, variables }, signal);
  for (const w of prepared.warnings) deps.warnOnce(`${where}: ${w}`);
  // Each backend takes its own models and efforts: `sonnet` on Claude Code, `openai/gpt-5` and `xhigh` on pi.
  const backend = backendOf(scope.backend);
  const { model, fallbackModels = [], effort } = stateModel(backend, prepared.policy, deps, where);
  const models = [model, ...fallbackModels];
  tally.backend = backend.name;
  tally.model = model;
  const grant = layeredGrant(deps.grant, scope.grant, prepared.policy.grant);
  const grantProblem = backend.grantProblem(grant);
  if (grantProblem !== undefined)
    throw new RaymondError('ERR_GRANT', grantProblem, { file: where });
  const resolvedGrant = await resolveGrant(grant, scope, agent.cwd, where);
  const allowed = prepared.policy.allowed;
  const timeoutMs =
    prepared.policy.timeoutSeconds === undefined
      ? deps.timeoutMs
      : stateTimeoutMs(prepared.policy.timeoutSeconds);
  const spending = new Spending(input.sessionCosts);
  const visit = new VisitBudget(prepared.policy.budgetUsd, spending, where);
  // Every backend's figures pass here on their way to the state file.
  const sane = (figures: TurnFigures) => {
    const checked = saneFigures(figures);
    if (checked.problems.length > 0)
      deps.emit({
        type: 'warning',
        text: `[${agent.id}] ${where}: ${figuresWarning(checked.problems)}`,
      });
    return checked;
  };
  let state: TurnState = startTurns(agent, fallbackModels.length);
  const follow = (action: TurnAction, err: RaymondError): TurnState => {
    if (action.next === 'give-up')
      throw spending.attach(giveUp(action.reason, err, state, allowed));
    if (action.why === 'resume-reserved')
      deps.emit({
        type: 'detail',
        text: `[${agent.id}] session ${(state.plan as { id: string }).id} already exists; resuming it`,
      });
    if (action.why === 'rate-limited')
      deps.emit({
        type: 'detail',
        text: `[${agent.id}] ${formatError(err)}; trying again when the account has room`,
      });
    if (action.why === 'fallback')
      deps.emit({
        type: 'detail',
        text: `[${agent.id}] ${formatError(err)}; going on with ${models[action.state.modelAt]} (fallback_models)`,
      });
    if (action.why === 'retry')
      deps.emit({
        type: 'warning',
        text: `[${agent.id}] ${formatError(err)}; retrying (${action.state.retries}/${MAX_RETRIES})`,
      });
    if (action.why === 'remind')
      deps.emit({
        type: 'warning',
        text: `[${agent.id}] ${where}: ${err.message}; reminding (${action.state.reminders}/${MAX_REMINDERS})`,
      });
    tally.retries = action.state.retries;
    tally.reminders = action.state.reminders;
    return action.state;
  };
  for (;;) {
    let execution: Execution;
    deps.emit({ type: 'turn.started', agentId: agent.id, state: agent.state });
    visit.check();
    // --budget-hard: the turn tells the meter what it spends, and the meter stops it at the budget.
    const metered = deps.budgetMeter?.turn(agent.id, agent.budgets);
    try {
      execution = await markdown.execute({
        workflowId: deps.workflowId,
        agent,
        file: agent.state,
        scope,
        signal: visit.signal(metered ? [signal, metered.signal] : [signal]),
        // Only when something watches: Codex reads its rollout file for it.
        ...((metered || visit.capped) && {
          onSpend: (costUsd: number) => {
            metered?.spent(costUsd);
            visit.turnSpent(costUsd);
          },
        }),
        timeoutMs,
        timeoutFromState: prepared.policy.timeoutSeconds !== undefined,
        debug: stepDebug(deps, agent),
        makeTaskFolder: await deps.tasks.usedBy(scope),
        prompt:
          state.remind === undefined
            ? prepared.prompt
            : prepared.prompt + reminder(allowed!, state.remind),
        session: state.plan,
        costBase: spending.base(state.plan),
        backend: scope.backend,
        model: models[state.modelAt],
        fallbackModels: fallbackModels.slice(state.modelAt),
        effort,
        grant: resolvedGrant,
        env: deps.traceEnv?.(agent.id),
      });
    } catch (err) {
      if (!(err instanceof RaymondError) || !TURN_ERRORS.has(err.code)) throw err;
      const details = err.details as {
        sessionInUse?: boolean;
        costUsd?: number;
        session?: string | null;
        sessionTotal?: number | null;
        tokens?: number;
        cpuMs?: number;
        limited?: number;
        unavailable?: boolean;
        fellBack?: boolean;
      };
      const figures = sane({
        costUsd: details.costUsd ?? 0,
        sessionTotal: details.sessionTotal,
        tokens: details.tokens,
      });
      spending.add(figures.costUsd, details.session, figures.sessionTotal);
      tally.add({ ...details, tokens: figures.tokens }, true);
      metered?.end(figures.costUsd);
      deps.emit({
        type: 'turn.done',
        agentId: agent.id,
        costUsd: figures.costUsd,
        tokens: figures.tokens,
        error: err.message,
      });
      if (visit.stopped && !signal.aborted && !metered?.signal.aborted)
        throw spending.attach(visit.spent(details.session ?? null));
      // Stopped at a budget (not by the run): at the run's the agent pauses, its session kept for a resume; at its branch's its worker fails.
      if (metered?.signal.aborted && !signal.aborted) {
        const stop = metered.signal.reason as BudgetStop;
        throw spending.attach(
          new RaymondError(stop.code, stop.message, {
            file: where,
            details: { session: details.session ?? null, costUsd: figures.costUsd },
          }),
        );
      }
      state = follow(
        nextTurn(state, {
          type: 'turn.failed',
          usageLimit: err.code === 'ERR_USAGE_LIMIT',
          aborted: signal.aborted,
          sessionInUse: details.sessionInUse === true,
          limited: details.limited !== undefined,
          onModel: (details.limited === 529 || details.unavailable === true) && !details.fellBack,
          refused: err.code === 'ERR_AGENT_REFUSED',
          now: Date.now(),
        }),
        err,
      );
      continue;
    }
    const { costUsd, sessionTotal, tokens } = sane(execution);
    spending.add(costUsd, execution.session, sessionTotal);
    metered?.end(costUsd);
    tally.add({ ...execution, tokens }, true);
    tally.answered(execution.models ?? [models[state.modelAt]]);
    deps.emit({ type: 'turn.done', agentId: agent.id, costUsd, tokens });
    if (grant.onDenial === 'fail' && execution.denials?.length) {
      // The turn went on without what it was denied: its reply cannot be trusted to have done the work.
      if (execution.session) markdown.endSession?.(execution.session);
      const n = execution.denials.length;
      throw spending.attach(
        new RaymondError(
          'ERR_PERMISSION_DENIED',
          `${n} tool call${n === 1 ? ' was' : 's were'} denied (on_denial: fail): ${execution.denials.join(', ')}`,
          { file: where },
        ),
      );
    }
    try {
      const interpretation = await deps.language.interpret(
        {
          output: execution.output,
          file: where,
          allowed,
          forceImplicit: prepared.policy.forceImplicit,
          implicitVariables,
        },
        signal,
      );
      for (const t of interpretation.prints)
        deps.emit({ type: 'print', agentId: agent.id, text: t });
      const decision = await settleWorktrees(
        deps,
        input,
        await resolveDecision(interpretation.decision, input, deps, where),
      );
      // Only an agent that goes on in its session and waits for a slot keeps its live process;
      // any other's next turn resumes the session from disk.
      if (execution.session && endsWarmth(decision)) markdown.endSession?.(execution.session);
      return {
        decision,
        session: execution.session,
        costUsd: spending.costUsd,
        sessionCosts: spending.sessionCosts,
        freshSessions: freshSessions(decision),
      };
    } catch (err) {
      if (!(err instanceof RaymondError)) throw err;
      state = follow(
        nextTurn(state, {
          type: 'reply.unusable',
          session: execution.session,
          problem: err.message,
          remindable: !!allowed && REMINDABLE.has(err.code),
        }),
        err,
      );
    }
  }
}
