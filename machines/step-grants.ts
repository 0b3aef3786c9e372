import type { AnyActorRef } from 'xstate';
import type { StepGrant } from './agent-types.js';
import { budgetKey, chargeBranches, reservationOf, reserve, settle } from './budget-line.js';
import { sessionCostsFor } from './cost-ledger.js';
import { usd as usdText } from './money.js';
import { grant, release, type Waiting } from './scheduler.js';
import type { SupervisorContext } from './supervisor-types.js';
import type { RunEvent } from './run-events.js';
import type { AgentRecord } from './types.js';

/** A step the supervisor may start now: its agent's record, and what it is told with `step.start`. */
export interface GrantedStep {
  waiting: Waiting<AnyActorRef | undefined>;
  record: AgentRecord;
  granted: StepGrant;
  /** The `step.started` event that says so. */
  started: Extract<RunEvent, { type: 'step.started' }>;
}

/**
 * The steps that may start now: every free slot the scheduler grants,
 * a markdown step only once the run's budget holds its reservation
 * (budget-line.ts), each with the cost figures its agent needs.
 */
export function grantSteps(context: SupervisorContext): GrantedStep[] {
  const { store, slots, budget } = context.work;
  const { meta } = store;
  const refused = new Map<string, string>();
  const admit = (w: Waiting<AnyActorRef | undefined>) => {
    const record = store.agents.get(w.agentId)!;
    const key = budgetKey(record.scope, record.state);
    const usd = reservationOf(budget, key, context.reserve?.(record.scope, record.state));
    const admission = reserve(budget, meta.options.budget_usd, meta.total_cost_usd, {
      agentId: w.agentId,
      key,
      usd,
      ...(record.budgets ? { budgets: record.budgets } : {}),
    });
    // A spent branch: the step is granted only to fail at once, ending its worker (a join gets it).
    if (admission.kind === 'refuse') {
      const whose = admission.branch === record.id ? 'its' : `its branch's (${admission.branch})`;
      refused.set(
        w.agentId,
        `budget: ${whose} budget of ${usdText(admission.budgetUsd)} is spent (${usdText(admission.spentUsd)}); no new step was started`,
      );
    }
    return admission.kind !== 'wait';
  };
  return grant(slots, context.persisted, admit).map((waiting) => {
    const record = store.agents.get(waiting.agentId)!;
    const granted: StepGrant = {
      forkCount: meta.fork_counters[waiting.agentId] ?? 0,
      sessionCosts: sessionCostsFor(store, [
        record.session,
        record.branchFrom,
        record.next_session,
      ]),
    };
    const amount = meta.options.confirm_over_usd;
    if (amount !== undefined) granted.gate = { amountUsd: amount, spentUsd: meta.total_cost_usd };
    const refusal = refused.get(waiting.agentId);
    if (refusal) granted.refused = refusal;
    const started: GrantedStep['started'] = {
      type: 'step.started',
      agentId: record.id,
      state: record.state,
    };
    if (record.scope) started.scope = record.scope;
    const reservedUsd = budget.held.get(record.id)?.usd;
    if (reservedUsd) started.reservedUsd = reservedUsd;
    return { waiting, record, granted, started };
  });
}

/**
 * A granted step ended (done, failed or paused), costing `costUsd`: its
 * reservation is let go, and its slot once the store version recording
 * the end (the one `changed` is about to make) is on disk.
 */
export function endStep(
  context: SupervisorContext,
  agentId: string,
  costUsd: number | undefined,
): void {
  const work = context.work;
  release(work.slots, agentId, context.version + 1);
  settle(work.budget, agentId, costUsd);
  chargeBranches(work.budget, work.store.agents.get(agentId)?.budgets, costUsd ?? 0);
}

/**
 * What the markdown steps still waiting would need of a budget just spent
 * (each its reservation): said when the run stops for its budget, so that
 * a `--resume --budget` can be sized. Empty when none waits.
 */
export function budgetNeed(context: SupervisorContext): string {
  const { store, slots, budget } = context.work;
  let steps = 0;
  let usd = 0;
  for (const queue of [slots.holders, slots.others])
    for (const w of queue.items.slice(queue.head)) {
      if (!w.markdown) continue;
      const record = store.agents.get(w.agentId);
      if (!record) continue;
      steps++;
      const key = budgetKey(record.scope, record.state);
      usd += reservationOf(budget, key, context.reserve?.(record.scope, record.state));
    }
  if (steps === 0) return '';
  const figure = usd > 0 ? `about ${usdText(usd)} more (each what it reserves)` : 'more';
  return `; the ${steps} markdown step${steps === 1 ? '' : 's'} waiting would need ${figure}`;
}
