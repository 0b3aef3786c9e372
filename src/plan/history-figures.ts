import type { Forecast, StateHistory, WorkflowHistory } from '../history/history-types.js';
import { p50p90 } from '../history/percentiles.js';

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

/** One step of a state as its history saw it; undefined when it never ran. A script's steps are free whatever was recorded. */
export function historyForecast(h: StateHistory | undefined): Forecast | undefined {
  const cost = p50p90(h?.costs ?? []);
  const wall = p50p90(h?.walls ?? []);
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
  return p50p90(h?.visits ?? []);
}

/** The cost of one worker that started at `key`, from the runs that forked there. */
export function workerCosts(history: WorkflowHistory | undefined, key: string): Range | undefined {
  return p50p90(history?.workers[key] ?? []);
}

/**
 * The whole runs' cost (USD) and wall time (ms), from the runs that
 * completed; undefined without one. A run that paused (at an ask, at the
 * cost gate), failed or ran out of budget stopped part of the way: its total
 * is no whole run's, and counting it forecast a fan-out at $0.00 after one
 * run paused before its workers. Its steps still count, state by state.
 */
export function runTotals(
  history: WorkflowHistory | undefined,
): { cost: Range; wallMs: Range; runs: number } | undefined {
  const runs = (history?.runs ?? []).filter((r) => r.status === 'completed');
  const cost = p50p90(runs.map((r) => r.costUsd));
  const wallMs = p50p90(runs.map((r) => Math.max(0, r.endedAt - r.startedAt)));
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
