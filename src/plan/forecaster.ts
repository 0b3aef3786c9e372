import type { PriceOverrides } from '../agents/agent-backend.js';
import type { Forecast, Forecaster, WorkflowHistory } from '../history/history-types.js';
import { defaultBackend } from '../agents/registry/registry.js';
import { stateKey, type PlanGraph } from './plan-graph.js';
import { historyForecast, workerCosts } from './history-figures.js';
import { reachableFrom, statesInLoops, forkTargets } from './reachable-states.js';
import {
  DEFAULT_TURNS,
  GUESS_P90_FACTOR,
  SECONDS_PER_TURN,
  statePrior,
  turnCost,
} from './state-prior.js';
import { isMarkdown } from '../scope/extensions.js';

/** What a forecaster is made from. */
export interface ForecastSources {
  /** The run's workflow and its callees. */
  graph: PlanGraph;
  /** The workflow's history; absent when it has none (every markdown state is then a guess). */
  history?: WorkflowHistory;
  /** The run's `--model`, for markdown states whose frontmatter names none. */
  model?: string;
  /** The run's input, rendered into the entry state's prompt for its size. */
  input?: string;
  /** The config's `[raymond.prices]`, over each backend's own table. */
  prices?: PriceOverrides;
  /**
   * Other names of the callees' scopes (the run's scope keys, their root
   * paths) mapped to their history keys, so either can be asked about.
   */
  scopeAliases?: ReadonlyMap<string, string>;
}

/** A forecaster that can also say what it knows about a state by its history key. */
export interface PlanForecaster extends Forecaster {
  /** One step of the state with this history key (`REVIEW.md`, `<scope>:<file>`). */
  stepOf(key: string): Forecast;
  /** One worker that starts at the state with this key, its whole life. */
  workerOf(key: string): Forecast;
  /** A state's `budget:`, from its frontmatter (or its YAML state). */
  budgetOf(scope: string | undefined, state: string): number | undefined;
}

/**
 * Makes the forecaster the cost gate and `raymond plan` ask: a step's
 * figure comes from the state's history when it has run before, else from
 * the prior (a script: $0); a worker's from what workers starting there
 * cost before, else the sum of its reachable states' steps, unbounded when
 * a paid state among them loops or forks again.
 */
export function createForecaster(sources: ForecastSources): PlanForecaster {
  const { graph, history } = sources;
  const keyOf = (scope: string | undefined, state: string) =>
    stateKey(scope === undefined ? undefined : (sources.scopeAliases?.get(scope) ?? scope), state);
  // The gate asks before every step of a fan-out: each state's figures are worked out once.
  const steps = new Map<string, Forecast>();
  const workers = new Map<string, Forecast>();
  const stepOf = (key: string): Forecast => {
    let f = steps.get(key);
    if (!f) steps.set(key, (f = stepFigure(key)));
    return f;
  };
  const workerOf = (key: string): Forecast => {
    let f = workers.get(key);
    if (!f) workers.set(key, (f = workerFigure(key)));
    return f;
  };
  const stepFigure = (key: string): Forecast => {
    const seen = historyForecast(history?.states[key]);
    if (seen) return seen;
    const node = graph.states.get(key)?.node;
    if (node) return statePrior(node, sources).forecast;
    return unknownState(key, sources.model, sources.prices);
  };
  const workerFigure = (key: string): Forecast => {
    // The history keeps workers by their start state's file, a callee's too.
    const seen =
      workerCosts(history, key) ?? workerCosts(history, graph.states.get(key)?.file ?? key);
    const life = reachableFrom(graph, [key]);
    const steps = life.length > 0 ? life.map(stepOf) : [stepOf(key)];
    const sum = (f: (s: Forecast) => number) => steps.reduce((a, s) => a + f(s), 0);
    const p50Ms = sum((s) => s.p50Ms);
    const p90Ms = sum((s) => s.p90Ms);
    if (seen) return { p50Usd: seen.p50, p90Usd: seen.p90, p50Ms, p90Ms, basis: 'history' };
    const paid = life.filter((k) => stepOf(k).basis !== 'free');
    const loops = statesInLoops(graph, life);
    const unbounded =
      paid.some((k) => loops.has(k)) ||
      forkTargets(graph, life).some((t) => reachableFrom(graph, [t]).some((k) => paid.includes(k)));
    const bases = new Set(steps.map((s) => s.basis));
    const basis = bases.has('guess') ? 'guess' : bases.has('history') ? 'history' : 'free';
    return {
      p50Usd: sum((s) => s.p50Usd),
      p90Usd: sum((s) => s.p90Usd),
      p50Ms,
      p90Ms,
      basis,
      ...(unbounded ? { unbounded: true as const } : {}),
    };
  };
  return {
    step: (scope, state) => stepOf(keyOf(scope, state)),
    worker: (scope, state) => workerOf(keyOf(scope, state)),
    budgetOf: (scope, state) => graph.states.get(keyOf(scope, state))?.node.policy.budgetUsd,
    stepOf,
    workerOf,
  };
}

/** A state the graph does not have (a workflow edited since): a script is free, anything else a guess with an empty prompt. */
function unknownState(
  key: string,
  model: string | undefined,
  prices: PriceOverrides | undefined,
): Forecast {
  const file = key.slice(key.lastIndexOf(':') + 1);
  if (!isMarkdown(file)) return { p50Usd: 0, p90Usd: 0, p50Ms: 1000, p90Ms: 3000, basis: 'free' };
  // Its workflow's backend is not known here: priced as the registry's default backend's.
  const usd = turnCost(0, defaultBackend().priceOf(model, prices)) * DEFAULT_TURNS;
  const ms = SECONDS_PER_TURN * 1000 * DEFAULT_TURNS;
  return {
    p50Usd: usd,
    p90Usd: usd * GUESS_P90_FACTOR,
    p50Ms: ms,
    p90Ms: ms * GUESS_P90_FACTOR,
    basis: 'guess',
  };
}
