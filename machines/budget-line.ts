/**
 * The run's budget as steps start: each paid step reserves what it is
 * forecast to cost (its state's p90) before it starts, and starts only if
 * the money spent, plus what the steps running have reserved, plus its own
 * reservation, stays within the budget. When no paid step runs, one may
 * start while the money spent is under the budget, so a budget below one
 * step's forecast still runs one step at a time. Mutated in place, as the
 * scheduler's slots are.
 */
export interface BudgetLine {
  /** What each running paid step reserved, by agent id, and the state it is a step of. */
  readonly held: Map<string, { usd: number; key: string }>;
  /** The sum of `held`. */
  reservedUsd: number;
  /** The dearest step of each state (`scope:state`) this run so far. */
  readonly seen: Map<string, number>;
}

/** A state's forecast as the run's forecaster gives it: the p90 of a step, and whether the history made it. */
export interface StepReservation {
  p90Usd: number;
  fromHistory: boolean;
}

export function createBudgetLine(): BudgetLine {
  return { held: new Map(), reservedUsd: 0, seen: new Map() };
}

/** A state's key in the line: its scope and file. */
export const budgetKey = (scope: string | undefined, state: string) => `${scope ?? ''}:${state}`;

/**
 * What a step of the state reserves: its p90 from the history (or the
 * dearest step of it this run, if dearer); without history, the dearest
 * step of it this run once one ended, else the prior's p90.
 */
export function reservationOf(
  line: BudgetLine,
  key: string,
  forecast: StepReservation | undefined,
): number {
  const seen = line.seen.get(key);
  if (!forecast) return seen ?? 0;
  if (forecast.fromHistory) return Math.max(forecast.p90Usd, seen ?? 0);
  return seen ?? forecast.p90Usd;
}

/**
 * Whether a paid step reserving `usd` may start now, and if so holds its
 * reservation. A budget of 0 (none) admits every step.
 */
export function reserve(
  line: BudgetLine,
  budgetUsd: number,
  spentUsd: number,
  step: { agentId: string; key: string; usd: number },
): boolean {
  if (budgetUsd <= 0) return true;
  const fits = spentUsd + line.reservedUsd + step.usd <= budgetUsd;
  const alone = line.held.size === 0 && spentUsd < budgetUsd;
  if (!fits && !alone) return false;
  line.held.set(step.agentId, { usd: step.usd, key: step.key });
  line.reservedUsd += step.usd;
  return true;
}

/** A step ended, costing `costUsd`: its reservation is let go, and its cost is remembered for its state's next steps. */
export function settle(line: BudgetLine, agentId: string, costUsd: number | undefined): void {
  const held = line.held.get(agentId);
  if (!held) return;
  line.held.delete(agentId);
  line.reservedUsd = line.held.size === 0 ? 0 : line.reservedUsd - held.usd;
  if (costUsd !== undefined && costUsd > (line.seen.get(held.key) ?? -1))
    line.seen.set(held.key, costUsd);
}

/** Every reservation let go: the run halts. */
export function clearReservations(line: BudgetLine): void {
  line.held.clear();
  line.reservedUsd = 0;
}
