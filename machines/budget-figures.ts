import type { BranchBudget } from './types.js';

/*
 * A run's budgets as people read them: what each allows, what was spent
 * against it, what the steps running now reserved of it, and what is left.
 * Shared by `--status` (from the state file), the server's JSON and the
 * live page (from the events), so all three count alike.
 */

/** One budget: the run's or a branch's. */
export interface BudgetFigures {
  budget_usd: number;
  spent_usd: number;
  reserved_usd: number;
  left_usd: number;
}

/** The run's budget (absent when unlimited) and each branch's, by the worker heading it. */
export interface RunBudgets {
  run?: BudgetFigures;
  branches: Array<BudgetFigures & { branch: string }>;
}

/** An agent as the figures need it: what it spent, what its running step reserved, and its branches. */
export interface BudgetedAgent {
  spentUsd: number;
  reservedUsd: number;
  budgets?: readonly BranchBudget[];
}

function figures(budget: number, spent: number, reserved: number): BudgetFigures {
  return {
    budget_usd: budget,
    spent_usd: spent,
    reserved_usd: reserved,
    left_usd: Math.max(0, budget - spent - reserved),
  };
}

/** The budgets of a run whose `budgetUsd` (0: none) and agents are these, `spentUsd` spent in all. */
export function runBudgets(
  budgetUsd: number,
  spentUsd: number,
  agents: Iterable<BudgetedAgent>,
): RunBudgets {
  const branches = new Map<string, { budget: number; spent: number; reserved: number }>();
  let reserved = 0;
  for (const a of agents) {
    reserved += a.reservedUsd;
    for (const b of a.budgets ?? []) {
      const s = branches.get(b.branch) ?? { budget: b.usd, spent: 0, reserved: 0 };
      s.spent += a.spentUsd;
      s.reserved += a.reservedUsd;
      branches.set(b.branch, s);
    }
  }
  const out: RunBudgets = {
    branches: [...branches].map(([branch, s]) => ({
      branch,
      ...figures(s.budget, s.spent, s.reserved),
    })),
  };
  if (budgetUsd > 0) out.run = figures(budgetUsd, spentUsd, reserved);
  return out;
}
