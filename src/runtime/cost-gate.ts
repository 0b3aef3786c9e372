import type { StepInput, StepResult } from '../../machines/agent.machine.js';
import { gateAsk, gateCrossed } from '../../machines/gate.js';
import type { RunEventSink } from '../../machines/run-events.js';
import type { GateAsk, WorkflowState } from '../../machines/types.js';
import { errorMessage } from '../errors.js';
import type { StepReservation } from '../../machines/budget-line.js';
import type { Forecaster } from '../history/history-types.js';
import { isMarkdown } from '../scope/extensions.js';
import type { Scope } from '../scope/scope.js';
import { gateDecision } from './resolve-decision.js';
import type { RunSettings } from '../settings/run-settings.js';
import type { RunHooks } from './run-types.js';
import { projectRootOf } from '../task-folder-pattern.js';

/*
 * The runtime's half of the cost gate (`--confirm-over`): it holds the
 * forecasts, so it decides when a step or a fork would take the run past
 * the amount, and turns that step into a question (machines/gate.ts says
 * what the answers do). Scripts forecast $0: they never stop at the gate.
 */

/** A step the gate stopped at: the agent waits on the gate's ask; nothing ran, nothing is charged. */
function stopped(input: StepInput, next: string, gate: GateAsk): StepResult {
  const ask = gateAsk(input.record.id, next, gate, Date.now());
  return { decision: gateDecision(ask), session: null, costUsd: 0 };
}

/**
 * Before a markdown step runs: the question to ask when the run's spent
 * plus the step's p90 forecast passes the amount; undefined to run it.
 */
export function gateBeforeStep(
  forecaster: Forecaster | undefined,
  input: StepInput,
): StepResult | undefined {
  const { gate, record } = input;
  if (!gate || !forecaster || !isMarkdown(record.state)) return undefined;
  const forecast = forecaster.step(record.scope, record.state).p90Usd;
  if (!gateCrossed(gate.spentUsd, forecast, gate.amountUsd)) return undefined;
  return stopped(input, record.state, {
    kind: 'state',
    where: record.state,
    forecast_usd: forecast,
    spent_usd: gate.spentUsd,
    amount_usd: gate.amountUsd,
  });
}

/**
 * After a step decided a `<fork>`: the question to ask when spent (with
 * this step) plus every worker's p90 forecast passes the amount, keeping
 * the resolved fork (and the session ids it reserved) for the answer to
 * apply; else the step's result as it is.
 */
export function gateAfterFork(
  forecaster: Forecaster | undefined,
  input: StepInput,
  result: StepResult,
): StepResult {
  const { gate, record } = input;
  const decision = result.decision;
  if (!gate || !forecaster || decision.kind !== 'fork') return result;
  let forecast = 0;
  for (const w of decision.workers) {
    const scope = w.workflow ? (w.workflow.scope ?? undefined) : record.scope;
    forecast += forecaster.worker(scope, w.target).p90Usd;
  }
  // Summed floats keep six decimals: what the question, the JSON and the state file show.
  forecast = Math.round(forecast * 1e6) / 1e6;
  const spent = gate.spentUsd + result.costUsd;
  if (!gateCrossed(spent, forecast, gate.amountUsd)) return result;
  const fresh = result.freshSessions ?? [];
  const ask = gateAsk(
    record.id,
    decision.next,
    {
      kind: 'fork',
      where: record.state,
      forecast_usd: forecast,
      spent_usd: spent,
      amount_usd: gate.amountUsd,
      workers: decision.workers.length,
      decision,
      fresh,
    },
    Date.now(),
  );
  // The step ran and is charged; its agent keeps the session id reserved for its own next turn.
  return { ...result, decision: gateDecision(ask), freshSessions: fresh.slice(0, 1) };
}

/**
 * The run's forecaster, when the cost gate (`--confirm-over`) or a budget
 * needs it and the front end makes one: the gate asks it before a step,
 * the budget reserves each markdown step's p90 of it. One that cannot be
 * made turns both off, with a warning.
 */
export async function gateForecaster(
  settings: Pick<RunSettings, 'confirmOverUsd' | 'budgetUsd' | 'model' | 'prices'>,
  hooks: Pick<RunHooks, 'forecaster'>,
  scope: Scope,
  stateFile: string,
  state: WorkflowState,
  emit: RunEventSink,
): Promise<Forecaster | undefined> {
  const uses = [
    ...(settings.confirmOverUsd !== undefined ? ['the cost gate (--confirm-over)'] : []),
    ...(settings.budgetUsd > 0 ? ["the budget's reservations"] : []),
  ].join(' and ');
  if (!uses || !hooks.forecaster) return undefined;
  const input = state.agents.find((a) => a.id === 'main')?.input;
  try {
    return await hooks.forecaster({
      scope,
      projectRoot: projectRootOf(stateFile),
      ...(settings.model ? { model: settings.model } : {}),
      ...(typeof input === 'string' ? { input } : {}),
      ...(settings.prices ? { prices: settings.prices } : {}),
      warn: (text) => emit({ type: 'warning', text: `${uses}: ${text}` }),
    });
  } catch (err) {
    emit({
      type: 'warning',
      text: `${uses}: cannot forecast this run, so none is made: ${errorMessage(err)}`,
    });
    return undefined;
  }
}

/** What a budget reserves for a markdown step: its state's p90 forecast (history, else the prior), at most the state's `budget:`. */
export function reservations(
  forecaster: Forecaster,
): (scope: string | undefined, state: string) => StepReservation {
  return (scope, state) => {
    const f = forecaster.step(scope, state);
    const capUsd = forecaster.budgetOf?.(scope, state);
    return {
      p90Usd: f.p90Usd,
      fromHistory: f.basis === 'history',
      ...(capUsd !== undefined && { capUsd }),
    };
  };
}
