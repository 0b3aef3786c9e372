import { usd } from './money.js';
import { putSessionCosts, type RunStore } from './run-store.js';

/**
 * Adds what a step cost to the run and remembers its sessions' totals (the
 * next turn of a session is charged only its delta). Returns true when this
 * charge spent the budget: from then on no new step may start. `stopped`:
 * `--budget-hard` stopped the step's turn as the run's streamed cost reached
 * the budget, which is then spent whatever this charge adds up to (the
 * stream's price and the CLI's own may differ by a little).
 */
export function charge(
  store: RunStore,
  costUsd: number,
  sessionCosts: Record<string, number> | undefined,
  stopped = false,
): boolean {
  const meta = store.meta;
  meta.total_cost_usd += costUsd;
  putSessionCosts(store, sessionCosts);
  const budget = meta.options.budget_usd;
  if (budget > 0 && (meta.total_cost_usd >= budget || stopped) && meta.status === 'running') {
    meta.status = 'budget_exceeded';
    // Stopped turns are charged one by one: the total of the first says nothing of the others'.
    const spent = stopped
      ? ': the turns running as it was reached were stopped (--budget-hard), their agents paused with their sessions'
      : ` (${usd(meta.total_cost_usd)})`;
    meta.error = `the budget of ${usd(budget)} is spent${spent}; no new step was started`;
    return true;
  }
  return false;
}

/** Last known totals of the sessions a step may continue: what its first turn's cost is a delta from. */
export function sessionCostsFor(
  store: RunStore,
  sessions: ReadonlyArray<string | null | undefined>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of sessions) {
    const total = s ? store.meta.session_costs[s] : undefined;
    if (s && total !== undefined) out[s] = total;
  }
  return out;
}
