import type { Forecast, StateHistory, WorkflowHistory } from '../history/history-types.js';
import { percentile } from './percentile.js';

/**
 * The figures the history gives a forecast: a state's p50 and p90 of cost
 * and wall time per step, its steps per run, the widths of its forks, and
 * the whole runs' totals. Pure arithmetic over the index's arrays.
 */

/** An expected (p50) and high (p90) figure. */
export interface Range {
  p50: number;
  p90: number;
}

/** The p50 and p90 of `values`; undefined when there are none. */
export function rangeOf(values: readonly number[]): Range | undefined {
  if (values.length === 0) return undefined;
  return { p50: percentile(values, 50), p90: percentile(values, 90) };
}

/** One step of a state as its history saw it; undefined when it never ran. A script's steps are free whatever was recorded. */
export function historyForecast(h: StateHistory | undefined): Forecast | undefined {
  const cost = rangeOf(h?.costs ?? []);
  const wall = rangeOf(h?.walls ?? []);
  if (!h || !cost || !wall) return undefined;
  const free = h.backend === 'script';
  return {
    p50Usd: free ? 0 : cost.p50,
    p90Usd: free ? 0 : cost.p90,
    p50Ms: wall.p50,
    p90Ms: wall.p90,
    basis: free ? 'free' : 'history',
  };
}

/** Steps of a state per run it ran in (above 1: a loop, or one per worker). */
export function visitsOf(h: StateHistory | undefined): Range | undefined {
  return rangeOf(h?.visits ?? []);
}

/** The cost of one worker that started at `key`, from the runs that forked there. */
export function workerCosts(history: WorkflowHistory | undefined, key: string): Range | undefined {
  return rangeOf(history?.workers[key] ?? []);
}

/** The whole runs' cost (USD) and wall time (ms); undefined without runs. */
export function runTotals(
  history: WorkflowHistory | undefined,
): { cost: Range; wallMs: Range; runs: number } | undefined {
  const runs = history?.runs ?? [];
  const cost = rangeOf(runs.map((r) => r.costUsd));
  const wallMs = rangeOf(runs.map((r) => Math.max(0, r.endedAt - r.startedAt)));
  return cost && wallMs ? { cost, wallMs, runs: runs.length } : undefined;
}

/**
 * A budget that would cover `usd`: rounded up to two significant figures
 * ($0.41 for $0.4012, $13 for $12.30), so it reads as a figure to type.
 */
export function budgetFor(usd: number): number {
  if (!(usd > 0)) return 0;
  const step = 10 ** (Math.floor(Math.log10(usd)) - 1);
  return Number((Math.ceil(usd / step - 1e-9) * step).toPrecision(2));
}
