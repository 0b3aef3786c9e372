import { usd } from '../../machines/money.js';
import type { WorkflowPlan } from './workflow-plan.js';

/** `$0.12–$0.40`, or `$0.12–unbounded`: a plan's expected and high cost of the whole run. */
export function costRange(range: { p50: number; p90: number | null }): string {
  return `${usd(range.p50)}–${range.p90 === null ? 'unbounded' : usd(range.p90)}`;
}

/** Where the whole-run figure comes from, in a few words. */
export function planBasis(plan: WorkflowPlan): string {
  if (plan.run.basis === 'runs')
    return `history of ${plan.historyRuns} run${plan.historyRuns === 1 ? '' : 's'}`;
  const paid = plan.states.filter((s) => s.costUsd.p90 > 0);
  if (paid.length === 0) return 'scripts only: free';
  return paid.some((s) => s.basis === 'guess') ? 'a guess: no history' : "the states' history";
}

/** The states that leave the high figure unbounded, named briefly (empty when it is bounded). */
function unboundedStates(plan: WorkflowPlan): string {
  if (plan.run.costUsd.p90 !== null) return '';
  const names = plan.states
    .filter((s) => s.visits.p90 === null && s.costUsd.p90 > 0)
    .map((s) => s.state);
  const named =
    names.length > 3
      ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more`
      : names.join(', ');
  return `; ${named} never seen run`;
}

/**
 * The forecast in one line, as a run prints it when it starts on a
 * terminal: `forecast: $0.12–$0.40 (history of 3 runs); budget $10.00`.
 * `budgetUsd` 0 (or absent) is no budget.
 */
export function forecastLine(plan: WorkflowPlan, budgetUsd: number | undefined): string {
  const budget =
    budgetUsd !== undefined && budgetUsd > 0 ? `budget ${usd(budgetUsd)}` : 'no budget';
  return `forecast: ${costRange(plan.run.costUsd)} (${planBasis(plan)}${unboundedStates(plan)}); ${budget}`;
}
