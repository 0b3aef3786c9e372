import type { RunEvent } from '../../machines/run-events.js';
import { usd } from '../../machines/money.js';
import type { RunSettings } from '../settings/run-settings.js';

/** One agent CLI turn as the meter watches it. */
export interface MeteredTurn {
  /** Aborted when the run's cost reaches the budget: its reason is the message the step stops with. */
  readonly signal: AbortSignal;
  /** The turn's cost so far, as its stream priced it: it only grows while the turn runs. */
  spent(costUsd: number): void;
  /** The turn ended, costing `costUsd` (what its step is charged for it): counted until the step is charged. */
  end(costUsd: number): void;
}

/** What one running step has cost the meter so far: its ended turns, and its turn running now. */
interface MeteredStep {
  endedUsd: number;
  liveUsd: number;
  stop?: AbortController;
}

/**
 * `--budget-hard`: the run's budget held inside each turn. The meter knows
 * what the run has been charged (from its events: `step.done`,
 * `agent.paused` and `agent.failed` carry the run's total) and what each
 * running step's turns have cost so far (each turn reports its streamed
 * cost as it grows). When the two reach the budget, every turn running is
 * stopped: the one whose message crossed the line, and the others, whose
 * next messages would pass it further. A turn that starts once the budget is
 * reached is stopped at once. So the run ends within the budget plus the
 * message that crossed it (the stream tells a message's usage once it is
 * paid for).
 */
export class BudgetMeter {
  /** The run's charged total, as its last event said. */
  private chargedUsd: number;
  /** The running steps' costs not yet charged, by agent id, and their sum. */
  private readonly steps = new Map<string, MeteredStep>();
  private runningUsd = 0;

  constructor(
    private readonly budgetUsd: number,
    chargedUsd: number,
  ) {
    this.chargedUsd = chargedUsd;
  }

  /** What the run has cost so far: charged, plus what its running steps spent. */
  get spentUsd(): number {
    return this.chargedUsd + this.runningUsd;
  }

  /** A turn of `agentId`'s running step begins; stopped at once when the budget is already reached. */
  turn(agentId: string): MeteredTurn {
    let step = this.steps.get(agentId);
    if (!step) this.steps.set(agentId, (step = { endedUsd: 0, liveUsd: 0 }));
    // A turn before it that never said it ended still counts, as spent.
    step.endedUsd += step.liveUsd;
    step.liveUsd = 0;
    const stop = new AbortController();
    step.stop = stop;
    if (this.reached()) this.stopAll();
    const own = step;
    return {
      signal: stop.signal,
      spent: (costUsd) => {
        if (own.stop !== stop || !(costUsd > own.liveUsd)) return;
        this.runningUsd += costUsd - own.liveUsd;
        own.liveUsd = costUsd;
        if (this.reached()) this.stopAll();
      },
      end: (costUsd) => {
        if (own.stop !== stop) return;
        this.runningUsd += costUsd - own.liveUsd;
        own.endedUsd += costUsd;
        own.liveUsd = 0;
        own.stop = undefined;
      },
    };
  }

  /** The run's events: a step charged (done, paused or failed) leaves the running ones, and the charged total follows. */
  event(e: RunEvent): void {
    if (e.type !== 'step.done' && e.type !== 'agent.paused' && e.type !== 'agent.failed') return;
    this.chargedUsd = e.totalCostUsd;
    const step = this.steps.get(e.agentId);
    if (!step) return;
    // Charged now: what its turn may still say no longer counts.
    step.stop = undefined;
    this.steps.delete(e.agentId);
    this.runningUsd = Math.max(0, this.runningUsd - step.endedUsd - step.liveUsd);
  }

  /** Within a billionth of a dollar: the running sum is kept by adding and taking away, which leaves a rounding trace. */
  private reached(): boolean {
    return this.spentUsd >= this.budgetUsd - 1e-9;
  }

  /** Stops every turn running, each with the same words. */
  private stopAll(): void {
    const reason = `stopped by --budget-hard: the run's cost reached its budget of ${usd(this.budgetUsd)} (${usd(this.spentUsd)} with the turns running); the agent is paused with its session, which a --resume with a larger --budget continues`;
    for (const step of this.steps.values())
      if (step.stop && !step.stop.signal.aborted) step.stop.abort(reason);
  }
}

/** The run's meter: with `--budget-hard` and a budget, starting from what the run was charged before; else none. */
export function budgetMeterFor(
  settings: Pick<RunSettings, 'budgetHard' | 'budgetUsd'>,
  chargedUsd: number,
): BudgetMeter | undefined {
  return settings.budgetHard && settings.budgetUsd > 0
    ? new BudgetMeter(settings.budgetUsd, chargedUsd)
    : undefined;
}
