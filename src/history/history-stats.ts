import { p50p90 } from './percentiles.js';
import type { StateHistory, StepBackend, StepRecord, WorkflowHistory } from './history-types.js';
import { CostTable, stateKeyOf, type CostRow } from '../../machines/cost-table.js';

/** Earlier steps a state needs before its latest run can be called dearer than usual. */
const FLAG_MIN_STEPS = 3;
/**
 * How much dearer than the p90 before it a step must be, on average, to be
 * flagged: by this ratio and by this many dollars both. The ratio alone
 * flagged $0.00003 over a p90 of $0.00002 (noise in a cheap state's tokens);
 * the floor alone would flag every dear state's normal spread.
 */
const FLAG_RATIO = 1.2;
const FLAG_FLOOR_USD = 0.01;

/** One state's figures over a workflow's history. */
export interface StateStats {
  state: string;
  backend: StepBackend;
  model?: string;
  /** Its steps by the model that answered them (a fallback model's too). */
  answeredBy?: Record<string, number>;
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
  /** Set when the latest run's steps of the state cost more, on average, than the p90 of the steps before it: 20% and $0.01 more at least. */
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
  const flagged = mean >= p90 * FLAG_RATIO && mean - p90 >= FLAG_FLOOR_USD;
  return flagged ? { run: s.latest.run, meanUsd: mean, p90Usd: p90 } : undefined;
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
    if (s.answeredBy !== undefined) out.answeredBy = { ...s.answeredBy };
    const flag = dearer(s);
    if (flag) out.dearer = flag;
    return out;
  });
  return {
    key: h.key,
    workflow: h.workflow,
    path: h.path,
    runs: h.runCount,
    totalUsd: h.totalUsd,
    runCostP50Usd: run?.p50 ?? 0,
    runCostP90Usd: run?.p90 ?? 0,
    states,
  };
}

/** A run's cost by state and by agent, dearest first. */
export interface RunCosts {
  run: string;
  costUsd: number;
  steps: number;
  byState: CostRow[];
  byAgent: CostRow[];
}

/** One run's cost tables, from its step records. */
export function runCosts(run: string, steps: readonly StepRecord[]): RunCosts {
  const byState = new CostTable();
  const byAgent = new CostTable();
  let costUsd = 0;
  for (const r of steps) {
    byState.add(stateKeyOf(r), r);
    byAgent.add(r.agent, r);
    costUsd += r.costUsd;
  }
  return {
    run,
    costUsd,
    steps: steps.length,
    byState: byState.rows(costUsd),
    byAgent: byAgent.rows(costUsd),
  };
}
