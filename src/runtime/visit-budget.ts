import { usd } from '../../machines/money.js';
import { RaymondError } from '../errors.js';
import type { Spending } from './step-spending.js';

/**
 * A state's `budget:`: what one visit of it (its turns together: retries,
 * reminders) may spend. The turn running when the visit reaches it is
 * stopped (its stream tells its cost as it goes: ExecutionRequest.onSpend),
 * and no further turn of the visit starts. The agent then fails with
 * ERR_BRANCH_BUDGET: a forked worker alone (a `<join>` gets it), the main
 * agent with its run. A backend that tells its cost only at a turn's end is
 * held at the next turn.
 */
export class VisitBudget {
  private readonly stop = new AbortController();

  constructor(
    private readonly capUsd: number | undefined,
    private readonly spending: Spending,
    private readonly where: string,
  ) {}

  /** Whether the state has a budget for a visit. */
  get capped(): boolean {
    return this.capUsd !== undefined;
  }

  /** Before each turn of the visit: none starts once the visit spent its budget. */
  check(): void {
    if (this.capUsd !== undefined && this.spending.costUsd >= this.capUsd)
      throw this.spending.attach(this.spent(null));
  }

  /** The turn's signals, with the visit's own stop when the state has a budget. */
  signal(signals: AbortSignal[]): AbortSignal {
    const all = this.capUsd === undefined ? signals : [...signals, this.stop.signal];
    return all.length === 1 ? all[0]! : AbortSignal.any(all);
  }

  /** What the running turn has cost so far: the visit's budget reached, the turn is stopped. */
  turnSpent(costUsd: number): void {
    if (this.capUsd !== undefined && this.spending.costUsd + costUsd >= this.capUsd)
      this.stop.abort();
  }

  /** Whether the visit's budget stopped the turn. */
  get stopped(): boolean {
    return this.stop.signal.aborted;
  }

  /** The error a visit out of money ends with; `session`: the one the stopped turn ran in. */
  spent(session: string | null): RaymondError {
    return new RaymondError(
      'ERR_BRANCH_BUDGET',
      `budget: this state's budget of ${usd(this.capUsd!)} a visit is spent (${usd(this.spending.costUsd)}); no further turn was started`,
      { file: this.where, details: { session } },
    );
  }
}
