import type { WorkflowState } from '../../machines/types.js';
import { usd } from '../../machines/money.js';

/** A budget as `--status` shows it: what it allows, what was spent against it, and what is left. */
export interface BudgetFigures {
  budget_usd: number;
  spent_usd: number;
  left_usd: number;
}

/** The budgets of a run: its own (absent when unlimited) and each branch's (`<fork budget>`), by the worker heading it. */
export interface RunBudgets {
  run?: BudgetFigures;
  branches: Array<BudgetFigures & { branch: string }>;
}

const figures = (budget: number, spent: number): BudgetFigures => ({
  budget_usd: budget,
  spent_usd: spent,
  left_usd: Math.max(0, budget - spent),
});

/**
 * What a run's budgets allow and what was spent against them, from its
 * state file: a branch spent what the agents under it spent (each agent's
 * own steps), whether they still run or not.
 */
export function runBudgets(state: WorkflowState, totalUsd: number): RunBudgets {
  const spent = new Map<string, { usd: number; budget: number }>();
  for (const a of state.agents)
    for (const b of a.budgets ?? []) {
      const s = spent.get(b.branch) ?? { usd: 0, budget: b.usd };
      s.usd += a.cost_usd ?? 0;
      spent.set(b.branch, s);
    }
  const out: RunBudgets = {
    branches: [...spent].map(([branch, s]) => ({ branch, ...figures(s.budget, s.usd) })),
  };
  if (state.options.budget_usd > 0) out.run = figures(state.options.budget_usd, totalUsd);
  return out;
}

/** `--status` lines of the branches' budgets: `branch main_w1: $0.12 of $0.10 spent, $0 left`. */
export function branchBudgetLines(budgets: RunBudgets): string[] {
  return budgets.branches.map(
    (b) =>
      `branch budget ${b.branch}: ${usd(b.spent_usd)} of ${usd(b.budget_usd)} spent, ${usd(b.left_usd)} left`,
  );
}
