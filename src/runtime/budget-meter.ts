import type { RunEvent } from '../../machines/run-events.js';
import type { AgentFields, BranchBudget } from '../../machines/types.js';
import { usd } from '../../machines/money.js';
import type { ErrorCode } from '../errors.js';
import type { RunSettings } from '../settings/run-settings.js';

/**
 * Why the meter stopped a turn (its signal's reason): the run's budget
 * pauses the agent (ERR_BUDGET); a branch's fails its worker
 * (ERR_BRANCH_BUDGET), as the branch's soft line does.
 */
export interface BudgetStop {
  code: Extract<ErrorCode, 'ERR_BUDGET' | 'ERR_BRANCH_BUDGET'>;
  message: string;
}

/** One agent CLI turn as the meter watches it. */
export interface MeteredTurn {
  /** Aborted when a budget the turn spends against is reached: its reason is a BudgetStop. */
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
  /** The branch budgets its agent spends against. */
  budgets: readonly BranchBudget[];
  stop?: AbortController;
}

/** A branch's money: what its agents were charged, and what their running steps cost so far. */
interface MeteredBranch {
  chargedUsd: number;
  runningUsd: number;
}

/**
 * `--budget-hard`: the run's budget, and each branch's (`<fork budget>`,
 * `--budget-per-agent`), held inside each turn. The meter knows what the
 * run has been charged (from its events: `step.done`, `agent.paused` and
 * `agent.failed` carry the run's total), what each branch's agents were
 * charged, and what each running step's turns have cost so far (each turn
 * reports its streamed cost as it grows). When the run's reach its budget,
 * every turn running is stopped: the one whose message crossed the line, and
 * the others, whose next messages would pass it further. When a branch's
 * reach its budget, the turns of that branch are stopped. A turn that starts
 * once a budget it spends against is reached is stopped at once. So a run or
 * a branch ends within its budget plus the message that crossed it (the
 * stream tells a message's usage once it is paid for).
 */
export class BudgetMeter {
  /** The run's charged total, as its last event said. */
  private chargedUsd: number;
  /** The running steps' costs not yet charged, by agent id, and their sum. */
  private readonly steps = new Map<string, MeteredStep>();
  private runningUsd = 0;
  private readonly branches = new Map<string, MeteredBranch>();

  /** `agents`: the run's agents as it starts (a resume), whose costs their branches spent. */
  constructor(
    private readonly budgetUsd: number,
    chargedUsd: number,
    agents: Iterable<Pick<AgentFields, 'budgets' | 'cost_usd'>> = [],
  ) {
    this.chargedUsd = chargedUsd;
    for (const a of agents)
      for (const { branch } of a.budgets ?? []) this.branch(branch).chargedUsd += a.cost_usd ?? 0;
  }

  /** What the run has cost so far: charged, plus what its running steps spent. */
  get spentUsd(): number {
    return this.chargedUsd + this.runningUsd;
  }

  /** What a branch has cost so far, the same way. */
  branchSpentUsd(branch: string): number {
    const b = this.branches.get(branch);
    return b ? b.chargedUsd + b.runningUsd : 0;
  }

  /**
   * A turn of `agentId`'s running step begins, spending against `budgets`
   * too; stopped at once when a budget is already reached. None when
   * nothing holds it (no run budget, no branch's).
   */
  turn(agentId: string, budgets: readonly BranchBudget[] = []): MeteredTurn | undefined {
    if (this.budgetUsd <= 0 && budgets.length === 0) return undefined;
    let step = this.steps.get(agentId);
    if (!step) this.steps.set(agentId, (step = { endedUsd: 0, liveUsd: 0, budgets }));
    // A turn before it that never said it ended still counts, as spent.
    step.endedUsd += step.liveUsd;
    step.liveUsd = 0;
    const stop = new AbortController();
    step.stop = stop;
    this.check(step);
    const own = step;
    return {
      signal: stop.signal,
      spent: (costUsd) => {
        if (own.stop !== stop || !(costUsd > own.liveUsd)) return;
        this.grow(own, costUsd - own.liveUsd);
        own.liveUsd = costUsd;
        this.check(own);
      },
      end: (costUsd) => {
        if (own.stop !== stop) return;
        this.grow(own, costUsd - own.liveUsd);
        own.endedUsd += costUsd;
        own.liveUsd = 0;
        own.stop = undefined;
      },
    };
  }

  /** The run's events: a step charged (done, paused or failed) leaves the running ones, and the charged totals follow. */
  event(e: RunEvent): void {
    if (e.type !== 'step.done' && e.type !== 'agent.paused' && e.type !== 'agent.failed') return;
    this.chargedUsd = e.totalCostUsd;
    const step = this.steps.get(e.agentId);
    if (!step) return;
    // Charged now: what its turn may still say no longer counts.
    step.stop = undefined;
    this.steps.delete(e.agentId);
    const own = step.endedUsd + step.liveUsd;
    this.runningUsd = Math.max(0, this.runningUsd - own);
    // A failed or paused step is charged what its turns spent (Spending.attach), a done one its step's cost.
    const charged = e.type === 'step.done' ? e.costUsd : own;
    for (const { branch } of step.budgets) {
      const b = this.branch(branch);
      b.runningUsd = Math.max(0, b.runningUsd - own);
      b.chargedUsd += charged;
    }
  }

  private branch(name: string): MeteredBranch {
    let b = this.branches.get(name);
    if (!b) this.branches.set(name, (b = { chargedUsd: 0, runningUsd: 0 }));
    return b;
  }

  /** A step's running cost grew (or shrank to its charge) by `delta`: the run's and its branches'. */
  private grow(step: MeteredStep, delta: number): void {
    this.runningUsd += delta;
    for (const { branch } of step.budgets) this.branch(branch).runningUsd += delta;
  }

  /** After `step` spent: the run's budget reached stops every turn, a branch's those of the branch. */
  private check(step: MeteredStep): void {
    if (this.budgetUsd > 0 && reached(this.spentUsd, this.budgetUsd)) {
      const message = `stopped by --budget-hard: the run's cost reached its budget of ${usd(this.budgetUsd)} (${usd(this.spentUsd)} with the turns running); the agent is paused with its session, which a --resume with a larger --budget continues`;
      this.stop(() => true, { code: 'ERR_BUDGET', message });
      return;
    }
    for (const { branch, usd: budget } of step.budgets) {
      const spent = this.branchSpentUsd(branch);
      if (!reached(spent, budget)) continue;
      const message = `budget: stopped by --budget-hard: branch ${branch}'s budget of ${usd(budget)} is spent (${usd(spent)} with its turns running); no further step of the branch starts`;
      this.stop((s) => s.budgets.some((b) => b.branch === branch), {
        code: 'ERR_BRANCH_BUDGET',
        message,
      });
    }
  }

  /** Stops every turn running of the steps `which` picks, each with the same reason. */
  private stop(which: (s: MeteredStep) => boolean, reason: BudgetStop): void {
    for (const step of this.steps.values())
      if (step.stop && !step.stop.signal.aborted && which(step)) step.stop.abort(reason);
  }
}

/** Within a billionth of a dollar: the running sums are kept by adding and taking away, which leaves a rounding trace. */
function reached(spentUsd: number, budgetUsd: number): boolean {
  return spentUsd >= budgetUsd - 1e-9;
}

/**
 * The run's meter: with `--budget-hard`, starting from what the run (and
 * each branch) was charged before; else none. Made without a run budget
 * too, for the branches' budgets.
 */
export function budgetMeterFor(
  settings: Pick<RunSettings, 'budgetHard' | 'budgetUsd'>,
  chargedUsd: number,
  agents: Iterable<Pick<AgentFields, 'budgets' | 'cost_usd'>> = [],
): BudgetMeter | undefined {
  return settings.budgetHard ? new BudgetMeter(settings.budgetUsd, chargedUsd, agents) : undefined;
}
