import type { AgentFields, BranchBudget } from './types.js';

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
  /** What each running paid step reserved, by agent id, the state it is a step of, and the branches it spends against. */
  readonly held: Map<string, { usd: number; key: string; branches: readonly BranchBudget[] }>;
  /** The sum of `held`. */
  reservedUsd: number;
  /** The dearest step of each state (`scope:state`) this run so far. */
  readonly seen: Map<string, number>;
  /** Each branch's (`<fork budget>`) spending, by the worker that heads it. */
  readonly branches: Map<string, BranchSpend>;
}

/** What a branch spent, what its running steps reserved, and how many of them run. */
export interface BranchSpend {
  spentUsd: number;
  reservedUsd: number;
  running: number;
}

/** Whether a step may start: `go` (its reservation is held), `wait`, or `refuse` (a branch it spends against is spent). */
export type Admission =
  | { kind: 'go' }
  | { kind: 'wait' }
  | { kind: 'refuse'; branch: string; budgetUsd: number; spentUsd: number };

/** A state's forecast as the run's forecaster gives it: the p90 of a step, and whether the history made it. */
export interface StepReservation {
  p90Usd: number;
  fromHistory: boolean;
  /** The state's `budget:`: a visit stops at it, so none of its steps reserves more. */
  capUsd?: number;
}

/** A line for a run whose agents spent what they did before (a resume): each branch starts at its agents' costs. */
export function createBudgetLine(agents: Iterable<AgentFields> = []): BudgetLine {
  const line: BudgetLine = {
    held: new Map(),
    reservedUsd: 0,
    seen: new Map(),
    branches: new Map(),
  };
  for (const a of agents) chargeBranches(line, a.budgets, a.cost_usd ?? 0);
  return line;
}

function branchOf(line: BudgetLine, branch: string): BranchSpend {
  let b = line.branches.get(branch);
  if (!b) line.branches.set(branch, (b = { spentUsd: 0, reservedUsd: 0, running: 0 }));
  return b;
}

/** What an agent's step cost, charged to every branch it spends against. */
export function chargeBranches(
  line: BudgetLine,
  budgets: readonly BranchBudget[] | undefined,
  costUsd: number,
): void {
  if (!budgets || costUsd <= 0) return;
  for (const { branch } of budgets) branchOf(line, branch).spentUsd += costUsd;
}

/** A state's key in the line: its scope and file. */
export const budgetKey = (scope: string | undefined, state: string) => `${scope ?? ''}:${state}`;

/**
 * How many times the prior's p90 a step reserves while its state's cost is
 * still a guess (no history, and no step of it ended this run). The prior
 * prices a step of the state's prompt at five requests; a turn that reads
 * large files costs several times that (4 messages of 20,000 tokens: 1.9x
 * the p90), and under a tight budget as many such turns as the guess fits
 * would start at once. Held this high, a budget under a few guesses runs
 * one step first, and the cost it ends with stands in for the guess.
 */
export const GUESS_RESERVE_FACTOR = 3;

/**
 * What a step of the state reserves: its p90 from the history (or the
 * dearest step of it this run, if dearer); without history, the dearest
 * step of it this run once one ended, else GUESS_RESERVE_FACTOR times the
 * prior's p90. Never more than the state's `budget:`, where a visit is
 * stopped (a step that ran over it by its last message does not raise its
 * state's next ones).
 */
export function reservationOf(
  line: BudgetLine,
  key: string,
  forecast: StepReservation | undefined,
): number {
  const seen = line.seen.get(key);
  if (!forecast) return seen ?? 0;
  const usd = forecast.fromHistory
    ? Math.max(forecast.p90Usd, seen ?? 0)
    : (seen ?? forecast.p90Usd * GUESS_RESERVE_FACTOR);
  return forecast.capUsd === undefined ? usd : Math.min(usd, forecast.capUsd);
}

/**
 * Whether a paid step reserving `usd` may start now, against the run's
 * budget (0: none) and each branch its agent spends against; on `go` its
 * reservation is held. A branch already spent refuses the step: its
 * worker ends, failed (a run's spent budget stops every step instead).
 */
export function reserve(
  line: BudgetLine,
  budgetUsd: number,
  spentUsd: number,
  step: { agentId: string; key: string; usd: number; budgets?: readonly BranchBudget[] },
): Admission {
  const budgets = step.budgets ?? [];
  // No budget at all: nothing to hold (a run of 100,000 agents keeps no line).
  if (budgetUsd <= 0 && budgets.length === 0) return { kind: 'go' };
  for (const { branch, usd } of budgets) {
    const b = line.branches.get(branch);
    if (b && b.spentUsd >= usd)
      return { kind: 'refuse', branch, budgetUsd: usd, spentUsd: b.spentUsd };
  }
  if (!within(budgetUsd, spentUsd, line.reservedUsd, line.held.size === 0, step.usd))
    return { kind: 'wait' };
  for (const { branch, usd } of budgets) {
    const b = line.branches.get(branch);
    if (b && !within(usd, b.spentUsd, b.reservedUsd, b.running === 0, step.usd))
      return { kind: 'wait' };
  }
  line.held.set(step.agentId, { usd: step.usd, key: step.key, branches: budgets });
  line.reservedUsd += step.usd;
  for (const { branch } of budgets) {
    const b = branchOf(line, branch);
    b.reservedUsd += step.usd;
    b.running++;
  }
  return { kind: 'go' };
}

/** Whether `usd` more fits a budget (0: none), or may start alone under it. */
function within(budget: number, spent: number, reserved: number, alone: boolean, usd: number) {
  if (budget <= 0) return true;
  return spent + reserved + usd <= budget || (alone && spent < budget);
}

/** A step ended, costing `costUsd`: its reservation is let go, and its cost is remembered for its state's next steps. */
export function settle(line: BudgetLine, agentId: string, costUsd: number | undefined): void {
  const held = line.held.get(agentId);
  if (!held) return;
  line.held.delete(agentId);
  line.reservedUsd = line.held.size === 0 ? 0 : line.reservedUsd - held.usd;
  for (const { branch } of held.branches) {
    const b = branchOf(line, branch);
    b.running--;
    b.reservedUsd = b.running === 0 ? 0 : b.reservedUsd - held.usd;
  }
  if (costUsd !== undefined && costUsd > (line.seen.get(held.key) ?? -1))
    line.seen.set(held.key, costUsd);
}

/** Every reservation let go: the run halts. */
export function clearReservations(line: BudgetLine): void {
  line.held.clear();
  line.reservedUsd = 0;
  for (const b of line.branches.values()) {
    b.reservedUsd = 0;
    b.running = 0;
  }
}
