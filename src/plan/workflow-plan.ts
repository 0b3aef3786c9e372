import type { PriceOverrides } from '../agents/agent-backend.js';
import type { Forecast, WorkflowHistory } from '../history/history-types.js';
import { backendOf } from '../agents/registry/registry.js';
import type { PlanForecaster } from './forecaster.js';
import { p50p90 } from '../history/percentiles.js';
import { budgetFor, runTotals, visitsOf, type Range } from './history-figures.js';
import type { PlanGraph } from './plan-graph.js';
import { staticVisits } from './reachable-states.js';
import { statePrior } from './state-prior.js';

/**
 * The whole forecast `raymond plan` prints (and `--json` gives as is): one
 * row per state a run can reach, the whole run's range and the budget it
 * would need. Figures are USD and milliseconds; `null` stands for unbounded.
 */
export interface WorkflowPlan {
  workflow: string;
  path: string;
  /** The entry state; null when the workflow has none (no state is reachable then). */
  entry: string | null;
  /** Runs in the history (0: none, every paid figure is a guess). */
  historyRuns: number;
  /** The day the price table was taken (for the guesses). */
  pricesTaken: string;
  /** Whose prices the guesses use (`Claude`, `OpenAI`): the workflow's backend's table. */
  pricesOf: string;
  /** The workflow's agent CLI (`Claude Code`, `Codex`), whose system prompt the guesses count. */
  agentCli: string;
  states: PlanRow[];
  run: RunForecast;
  /** The budget that covers the run's high figure, rounded up; null when unbounded. */
  budgetUsd: number | null;
}

/** One state a run can reach. Cost and time are of one step; `visits` says how many steps a run makes. */
export interface PlanRow {
  /** The state's file, or `<callee's name>:<file>` in a cross-workflow callee. */
  state: string;
  /** Its key in the history: its file, or `<scope key>:<file>` in a callee. */
  key: string;
  kind: 'markdown' | 'script';
  /** The model as the state or the run names it; null: the agent CLI's default (or a script). */
  model: string | null;
  /** The price table's row the guess used (null for scripts). */
  price: string | null;
  basis: Forecast['basis'];
  /** Steps of the state the history has (0 when its figures are the prior's). */
  samples: number;
  /** Steps per run: from the history, 1, or unbounded (`loop`: on a cycle, `fork`: once per forked worker). */
  visits: { p50: number; p90: number | null; unbounded: 'loop' | 'fork' | null };
  costUsd: Range;
  wallMs: Range;
  /** For a state that forks: the widths its forks had (none seen: unbounded). */
  forks: { seen: number[]; p50: number | null; p90: number | null } | null;
}

/** The whole run: from the history's runs when there are any, else the sum over the states. */
export interface RunForecast {
  basis: 'runs' | 'states';
  costUsd: { p50: number; p90: number | null };
  wallMs: { p50: number; p90: number | null };
  /** Each state, by the rows, times its visits, added up (time as if one step after another). */
  statesSum: {
    costUsd: { p50: number; p90: number | null };
    wallMs: { p50: number; p90: number | null };
  };
  /** Why the high figure is unbounded: the states whose steps nothing bounds. */
  unbounded: string[];
}

/** Builds the plan of a workflow from its graph, its history and a forecaster made from both. */
export function planWorkflow(
  graph: PlanGraph,
  forecaster: PlanForecaster,
  history: WorkflowHistory | undefined,
  opts: { model?: string; input?: string; prices?: PriceOverrides } = {},
): WorkflowPlan {
  const rows: PlanRow[] = [];
  const reachable = staticVisits(graph);
  // A state the graph cannot see a way to (its prompt shows no tag) is reachable all the same once it ran.
  for (const key of Object.keys(history?.states ?? {}))
    if (graph.states.has(key) && !reachable.has(key)) reachable.set(key, 'once');
  for (const [key, reach] of reachable) {
    const { node, label } = graph.states.get(key)!;
    const seen = history?.states[key];
    const forecast = forecaster.stepOf(key);
    const prior = statePrior(node, opts);
    const visits = visitsOf(seen);
    const unbounded = reach === 'loop' ? 'loop' : reach === 'per-worker' ? 'fork' : null;
    const forks = graph.edges.get(key)?.some((e) => e.fork) ?? false;
    const widths = p50p90(seen?.widths ?? []);
    rows.push({
      state: label,
      key,
      kind: node.kind,
      model: node.kind === 'script' ? null : (seen?.model ?? prior.model ?? null),
      price: prior.priced?.label ?? null,
      basis: forecast.basis,
      samples: forecast.basis === 'guess' ? 0 : (seen?.costs.length ?? 0),
      visits: visits
        ? { ...visits, unbounded: null }
        : { p50: 1, p90: unbounded ? null : 1, unbounded },
      costUsd: { p50: forecast.p50Usd, p90: forecast.p90Usd },
      wallMs: { p50: forecast.p50Ms, p90: forecast.p90Ms },
      forks: forks
        ? {
            seen: [...new Set(seen?.widths ?? [])].sort((a, b) => a - b),
            p50: widths?.p50 ?? null,
            p90: widths?.p90 ?? null,
          }
        : null,
    });
  }
  const run = runForecast(rows, history);
  // The run's own workflow's backend: a callee's on another backend is priced by its own table all the same.
  const backend = backendOf(
    graph.entry === undefined ? undefined : graph.states.get(graph.entry)?.node.backend,
  );
  const prices = backend.priceTable;
  return {
    workflow: graph.name,
    path: graph.path,
    entry: graph.entry ?? null,
    historyRuns: history?.runCount ?? 0,
    pricesTaken: prices.taken,
    pricesOf: prices.name,
    agentCli: backend.title,
    states: rows,
    run,
    budgetUsd: run.costUsd.p90 === null ? null : budgetFor(run.costUsd.p90),
  };
}

function runForecast(rows: PlanRow[], history: WorkflowHistory | undefined): RunForecast {
  const sum = (figure: (r: PlanRow) => Range, paid: boolean) => {
    let p50 = 0;
    let p90: number | null = 0;
    for (const r of rows) {
      const f = figure(r);
      p50 += f.p50 * r.visits.p50;
      if (r.visits.p90 === null) {
        // A free state's cost stays $0 however often it runs; its time does not.
        if (!paid || f.p90 > 0) p90 = null;
      } else if (p90 !== null) p90 += f.p90 * r.visits.p90;
    }
    return { p50, p90 };
  };
  const statesSum = { costUsd: sum((r) => r.costUsd, true), wallMs: sum((r) => r.wallMs, false) };
  const unbounded = rows
    .filter((r) => r.visits.p90 === null && r.costUsd.p90 > 0)
    .map(
      (r) =>
        `${r.state} (${r.visits.unbounded === 'loop' ? 'a loop' : 'once per forked worker'}, never seen run)`,
    );
  const totals = runTotals(history);
  if (totals)
    return { basis: 'runs', costUsd: totals.cost, wallMs: totals.wallMs, statesSum, unbounded: [] };
  return { basis: 'states', ...statesSum, statesSum, unbounded };
}
