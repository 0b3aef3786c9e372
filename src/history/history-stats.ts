import { p50p90 } from './percentiles.js';
import type { StateHistory, StepBackend, StepRecord, WorkflowHistory } from './history-types.js';
import { stateKeyOf } from './history-fold.js';

/** Earlier steps a state needs before its latest run can be called dearer than usual. */
const FLAG_MIN_STEPS = 3;

/** One state's figures over a workflow's history. */
export interface StateStats {
  state: string;
  backend: StepBackend;
  model?: string;
  runs: number;
  steps: number;
  turns: number;
  costP50Usd: number;
  costP90Usd: number;
  wallP50Ms: number;
  wallP90Ms: number;
  /** Steps that failed (their agent failed or paused) over all steps. */
  failureRate: number;
  retries: number;
  reminders: number;
  /** Set when the latest run's steps of the state cost more, on average, than the p90 of the steps before it. */
  dearer?: { run: string; meanUsd: number; p90Usd: number };
}

/** A workflow's figures: its runs, and each state's. */
export interface WorkflowStats {
  key: string;
  workflow: string;
  path: string;
  runs: number;
  totalUsd: number;
  runCostP50Usd: number;
  runCostP90Usd: number;
  states: StateStats[];
}

function dearer(s: StateHistory): StateStats['dearer'] {
  if (!s.latest) return undefined;
  const before = s.costs.slice(0, s.costs.length - s.latest.costs.length);
  if (before.length < FLAG_MIN_STEPS) return undefined;
  const p90 = p50p90(before)!.p90;
  const mean = s.latest.costs.reduce((a, b) => a + b, 0) / s.latest.costs.length;
  return mean > p90 ? { run: s.latest.run, meanUsd: mean, p90Usd: p90 } : undefined;
}

/** The figures `raymond stats WORKFLOW` shows, from the workflow's history. */
export function workflowStats(h: WorkflowHistory): WorkflowStats {
  const runCosts = h.runs.map((r) => r.costUsd);
  const run = p50p90(runCosts);
  const states = Object.values(h.states).map((s): StateStats => {
    const cost = p50p90(s.costs);
    const wall = p50p90(s.walls);
    const out: StateStats = {
      state: s.state,
      backend: s.backend,
      runs: s.runs,
      steps: s.steps,
      turns: s.turns,
      costP50Usd: cost?.p50 ?? 0,
      costP90Usd: cost?.p90 ?? 0,
      wallP50Ms: wall?.p50 ?? 0,
      wallP90Ms: wall?.p90 ?? 0,
      failureRate: s.steps === 0 ? 0 : s.failures / s.steps,
      retries: s.retries,
      reminders: s.reminders,
    };
    if (s.model !== undefined) out.model = s.model;
    const flag = dearer(s);
    if (flag) out.dearer = flag;
    return out;
  });
  return {
    key: h.key,
    workflow: h.workflow,
    path: h.path,
    runs: h.runs.length,
    totalUsd: runCosts.reduce((a, b) => a + b, 0),
    runCostP50Usd: run?.p50 ?? 0,
    runCostP90Usd: run?.p90 ?? 0,
    states,
  };
}

/** A row of a run's cost table: a state's or an agent's steps. */
export interface CostRow {
  name: string;
  steps: number;
  turns: number;
  costUsd: number;
  wallMs: number;
  /** Its part of the run's cost (0 to 1; 0 when the run cost nothing). */
  share: number;
}

/** A run's cost by state and by agent, dearest first. */
export interface RunCosts {
  run: string;
  costUsd: number;
  steps: number;
  byState: CostRow[];
  byAgent: CostRow[];
}

function rows(steps: readonly StepRecord[], nameOf: (r: StepRecord) => string, total: number) {
  const by = new Map<string, CostRow>();
  for (const r of steps) {
    const name = nameOf(r);
    const row = by.get(name) ?? { name, steps: 0, turns: 0, costUsd: 0, wallMs: 0, share: 0 };
    by.set(name, row);
    row.steps++;
    row.turns += r.turns;
    row.costUsd += r.costUsd;
    row.wallMs += r.wallMs;
  }
  for (const row of by.values()) row.share = total > 0 ? row.costUsd / total : 0;
  return [...by.values()].sort((a, b) => b.costUsd - a.costUsd || a.name.localeCompare(b.name));
}

/** One run's cost tables, from its step records. */
export function runCosts(run: string, steps: readonly StepRecord[]): RunCosts {
  const costUsd = steps.reduce((a, r) => a + r.costUsd, 0);
  return {
    run,
    costUsd,
    steps: steps.length,
    byState: rows(steps, stateKeyOf, costUsd),
    byAgent: rows(steps, (r) => r.agent, costUsd),
  };
}
