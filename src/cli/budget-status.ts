import { runBudgets, type RunBudgets } from '../../machines/budget-figures.js';
import { usd } from '../../machines/money.js';
import type { WorkflowState } from '../../machines/types.js';

/** A run's budgets from its state file: nothing is reserved once it is written (each agent's own steps spent). */
export function stateBudgets(state: WorkflowState, totalUsd: number): RunBudgets {
  return runBudgets(
    state.options.budget_usd,
    totalUsd,
    state.agents.map((a) => ({
      spentUsd: a.cost_usd ?? 0,
      reservedUsd: 0,
      ...(a.budgets ? { budgets: a.budgets } : {}),
    })),
  );
}

/** `--status` lines of the branches' budgets: `branch budget main_w1: $0.12 of $0.10 spent, $0.00 left`. */
export function branchBudgetLines(budgets: RunBudgets): string[] {
  return budgets.branches.map(
    (b) =>
      `branch budget ${b.branch}: ${usd(b.spent_usd)} of ${usd(b.budget_usd)} spent, ${usd(b.left_usd)} left`,
  );
}
