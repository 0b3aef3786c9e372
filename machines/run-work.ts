import { createActor, type AnyActorLogic, type AnyActorRef } from 'xstate';
import { charge } from './cost-ledger.js';
import { frameFor } from './frame-waiters.js';
import { resolveReadyJoins } from './joins.js';
import { expireInStore } from './run-asks.js';
import { putAgent, reusedId, setRunStatus, type RunStore } from './run-store.js';
import { enqueue } from './scheduler.js';
import { withStart } from './worktree-start.js';
import { failureText, type StepFailure } from './step-failure.js';
import type { AgentToSupervisorEvent, AskResolvedEvent, JoinResolvedEvent } from './agent-types.js';
import type { RunWork, SupervisorContext, SupervisorEmitted } from './supervisor-types.js';
import type { AgentRecord } from './types.js';

/*
 * What the supervisor's actions do to the run's working set (RunWork):
 * queueing agents for slots, recording failures, starting agents' actors,
 * handing joins and expired asks their records. Pure but for the actors it
 * starts, as the supervisor itself is.
 */

/**
 * Queues an agent for a slot once the store version `readyAt` is on disk: by
 * default the version being recorded, for actions that run before `changed`
 * bumps it.
 */
export function waitForSlot(
  context: SupervisorContext,
  agentId: string,
  ref: AnyActorRef | undefined,
  readyAt = context.version + 1,
): void {
  const record = context.work.store.agents.get(agentId)!;
  const holder = record.worktree?.path !== undefined && record.worktree.removed === undefined;
  enqueue(context.work.slots, {
    agentId,
    ref,
    readyAt,
    markdown: record.state.endsWith('.md'),
    holder,
  });
}

/** An agent's record with what a step of it cost added to its own total. */
export function withCost<T extends AgentRecord>(store: RunStore, record: T, costUsd: number): T {
  const total = (store.agents.get(record.id)?.cost_usd ?? 0) + costUsd;
  return total > 0 ? { ...record, cost_usd: total } : record;
}

/**
 * An agent paused by its step's failure: why, a usage limit's reset, and,
 * for a turn `--budget-hard` stopped, the session the turn ran in, which the
 * agent goes on in (as a turn that ended would have fixed it: a pending
 * `<call>` branch is then used up).
 */
export function pausedRecord(record: AgentRecord, failure: StepFailure): AgentRecord {
  const paused: AgentRecord = {
    ...withStart(record, failure.startsNext),
    status: 'paused',
    error: failureText(failure),
  };
  if (failure.resetsAt !== undefined) paused.resets_at = failure.resetsAt;
  if (failure.session !== undefined)
    Object.assign(paused, { session: failure.session, branchFrom: null });
  return paused;
}

/**
 * Records an agent's failure and returns the event that says so. A forked
 * worker's failure ends that worker only (its parent's join, if any, gets it
 * as a failed entry); any other agent's fails the run.
 */
export function failAgent(
  store: RunStore,
  agentId: string,
  state: string,
  failure: StepFailure,
): SupervisorEmitted {
  const record = store.agents.get(agentId)!;
  putAgent(
    store,
    withCost(store, { ...record, status: 'failed', error: failureText(failure) }, failure.spentUsd),
  );
  charge(store, failure.spentUsd, failure.sessionCosts);
  if (record.parent === undefined || failure.halts) {
    setRunStatus(store, 'failed', failureText(failure));
    return {
      type: 'agent.failed',
      agentId,
      state,
      failure,
      totalCostUsd: store.meta.total_cost_usd,
    };
  }
  return {
    type: 'agent.failed',
    agentId,
    state,
    failure,
    totalCostUsd: store.meta.total_cost_usd,
    worker: true,
  };
}

/**
 * Makes and starts an agent's bottom-frame actor. Agents are actors of the
 * supervisor's system with the supervisor as parent, but not snapshot
 * children: xstate copies a parent's children map on every spawn and stop,
 * which would make each agent cost O(n).
 */
export function startAgent(
  context: SupervisorContext,
  self: AnyActorRef,
  record: AgentRecord,
): AnyActorRef {
  const logic = (
    self as unknown as { logic: { implementations: { actors: Record<string, AnyActorLogic> } } }
  ).logic.implementations.actors.agent!;
  const ref = createActor(logic, {
    parent: self,
    id: record.id,
    systemId: `agent:${record.id}`,
    input: { record, depth: 0 },
  });
  context.work.actors.set(record.id, ref);
  ref.start();
  return ref;
}

/** The sends and emits of an `enqueueActions` the helpers here use. */
export type Enqueue = {
  sendTo: (ref: AnyActorRef, event: AskResolvedEvent | JoinResolvedEvent) => void;
  emit: (event: SupervisorEmitted) => void;
};

/** Hands every join whose workers have all ended its entries, or keeps them until its frame waits. */
export function settleJoins(work: RunWork, enqueue: Enqueue): void {
  // The count comes with the join: its input may hold thousands of entries, not worth parsing again.
  for (const { record, workers } of resolveReadyJoins(work.store)) {
    const ref = frameFor(work.joins, record);
    if (ref) enqueue.sendTo(ref, { type: 'join.resolved', record });
    enqueue.emit({ type: 'agent.joined', agentId: record.id, state: record.state, workers });
  }
}

/** Settles an ask whose time ran out (if still pending); true when its agent fails, and the run with it. */
export function expireOne(
  work: RunWork,
  due: { agentId: string; askId: string },
  enqueue: Enqueue,
  stop: (ref: AnyActorRef) => void,
): boolean {
  const expiry = expireInStore(work.store, due.agentId, due.askId);
  if (expiry?.kind === 'moved') {
    const ref = frameFor(work.asks, expiry.record);
    if (ref) enqueue.sendTo(ref, { type: 'ask.resolved', record: expiry.record });
    enqueue.emit({ type: 'ask.answered', agentId: due.agentId, askId: due.askId, expired: true });
  }
  if (expiry?.kind !== 'fails') return false;
  const worker = work.store.agents.get(expiry.agentId)?.parent !== undefined;
  enqueue.emit(failAgent(work.store, expiry.agentId, expiry.state, expiry.failure));
  if (!worker) return true;
  const ref = work.actors.get(expiry.agentId);
  if (ref) stop(ref);
  work.actors.delete(expiry.agentId);
  return false;
}

/**
 * Fails the run on a step whose `<fork>` named a worker with an id the run
 * already has, and returns the event that says so. Worker names are unique
 * by construction; if that ever breaks, the run fails rather than overwrite
 * an agent.
 */
export function refuseReusedId(
  store: RunStore,
  event: Extract<AgentToSupervisorEvent, { type: 'step.done' }>,
): SupervisorEmitted {
  const id = reusedId(
    store,
    event.spawns.map((s) => s.id),
  )!;
  const failure: StepFailure = {
    kind: 'step-failure',
    code: 'ERR_WORKER_ID',
    message: `<fork> named a worker "${id}", an id this run already has; no agent was overwritten and the step is not recorded`,
    file: event.from,
    pauses: false,
    spentUsd: event.costUsd,
    sessionCosts: event.sessionCosts ?? {},
  };
  const failed = failAgent(store, event.agentId, event.from, failure);
  setRunStatus(store, 'failed', failureText(failure));
  return failed;
}
