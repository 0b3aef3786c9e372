import { assertEvent, enqueueActions, fromCallback, setup, stopChild } from 'xstate';
import { agentMachine } from './agent.machine.js';
import type { AskResolvedEvent, JoinResolvedEvent } from './agent-types.js';
import { addWorkers } from './forked-workers.js';
import { reviewGate, settleGate, tooManyAgents } from './gate-work.js';
import { frameFor, frameWaits } from './frame-waiters.js';
import { answerInStore } from './run-asks.js';
import { charge } from './cost-ledger.js';
import { stackDepth } from './frame-stack.js';
import { putAgent, putResult, putWidth, setRunStatus, type RunStore } from './run-store.js';
import {
  expireOne,
  failAgent,
  pausedRecord,
  refuseReusedId,
  settleJoins,
  startAgent,
  waitForSlot,
  withCost,
} from './run-work.js';
import { clearReservations } from './budget-line.js';
import { clearSlots, setMarkdownCap } from './scheduler.js';
import { budgetNeed, endStep, grantSteps } from './step-grants.js';
import { STEP_RUNNER_ID, type StepRunnerEvent } from './step-runner.js';
import { supervisorGuards } from './supervisor-guards.js';
import type {
  PersisterEvent,
  SupervisorContext,
  SupervisorEmitted,
  SupervisorEvent,
  SupervisorInput,
  SupervisorOutput,
} from './supervisor-types.js';

/** The budget is spent: no new step starts, and the run says what the steps waiting would need. */
function spent(
  context: SupervisorContext,
  enqueue: { assign: (a: { draining: boolean }) => void },
) {
  context.work.store.meta.error += budgetNeed(context);
  enqueue.assign({ draining: true });
}

/**
 * The supervisor's setup: its types, its actors (one agent machine per
 * agent, the persister, the step runner), the actions its transitions name
 * and its guards (machines/supervisor-guards.ts). Apart from the machine (machines/
 * supervisor.machine.ts) so that file holds only the states and how they
 * move; the actions apply each event to the run's store and working set.
 */
export const supervisorSetup = setup({
  types: {
    input: {} as SupervisorInput,
    context: {} as SupervisorContext,
    events: {} as SupervisorEvent,
    emitted: {} as SupervisorEmitted,
    output: {} as SupervisorOutput,
  },
  actors: {
    agent: agentMachine,
    // Provided at the composition root: writes the store, coalescing versions.
    persister: fromCallback<PersisterEvent, { store: RunStore }>(() => {
      throw new Error('persister actor not provided');
    }),
    // Provided at the composition root as stepRunner(step function); tests give it fake steps.
    steps: fromCallback<StepRunnerEvent>(() => {
      throw new Error('step runner not provided');
    }),
  },
  actions: {
    changed: enqueueActions(({ context, enqueue }, params?: { compact?: boolean }) => {
      const version = context.version + 1;
      context.work.store.meta.updated_at = new Date().toISOString();
      enqueue.assign({ version });
      enqueue.sendTo('persister', {
        type: 'state.changed',
        version,
        compact: params?.compact ?? false,
      } satisfies PersisterEvent);
    }),
    recordStep: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'step.done');
      const { store, actors, toSpawn } = context.work;
      putAgent(store, withCost(store, event.record, event.costUsd));
      if (charge(store, event.costUsd, event.sessionCosts)) spent(context, enqueue);
      if (event.record.status === 'terminated') {
        putResult(store, event.agentId, event.record.result ?? '');
        actors.delete(event.agentId);
      }
      const workers = addWorkers(store, toSpawn, event.agentId, event.spawns, enqueue.emit);
      endStep(context, event.agentId, event.costUsd);
      if (event.outcome === 'ask' && event.record.ask)
        enqueue.emit({
          type: 'ask.created',
          ask: { ...event.record.ask, agent_id: event.agentId },
        });
      enqueue.emit({
        type: 'step.done',
        agentId: event.agentId,
        from: event.from,
        decision: event.decision,
        to: event.record.status === 'terminated' ? null : event.record.state,
        session: event.record.session,
        depth: stackDepth(event.record.stack),
        costUsd: event.costUsd,
        totalCostUsd: store.meta.total_cost_usd,
        workers: workers.map((w) => ({ id: w.id, state: w.state, attributes: w.attributes })),
      });
    }),
    pauseAgent: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'step.failed');
      const { store, actors } = context.work;
      const { failure } = event;
      const paused = pausedRecord(store.agents.get(event.agentId)!, failure);
      putAgent(store, withCost(store, paused, failure.spentUsd));
      if (charge(store, failure.spentUsd, failure.sessionCosts, failure.budget))
        spent(context, enqueue);
      actors.delete(event.agentId);
      endStep(context, event.agentId, failure.spentUsd);
      enqueue.emit({
        type: 'agent.paused',
        agentId: event.agentId,
        state: event.state,
        failure,
        totalCostUsd: store.meta.total_cost_usd,
      });
    }),
    failAgent: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'step.failed');
      enqueue.emit(failAgent(context.work.store, event.agentId, event.state, event.failure));
    }),
    /** A forked worker failed: it ends, the others go on. */
    failWorker: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'step.failed');
      const { store, actors } = context.work;
      enqueue.emit(failAgent(store, event.agentId, event.state, event.failure));
      actors.delete(event.agentId);
      endStep(context, event.agentId, event.failure.spentUsd);
    }),
    registerJoiner: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'agent.joining');
      const early = frameWaits(context.work.joins, event.agentId, event.ref);
      if (early)
        enqueue.sendTo(event.ref, {
          type: 'join.resolved',
          record: early,
        } satisfies JoinResolvedEvent);
    }),
    resolveJoins: enqueueActions(({ context, enqueue }) => settleJoins(context.work, enqueue)),
    refuseFork: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'step.done');
      const { store } = context.work;
      const failure = tooManyAgents(store, event.record, event.spawns.length, event.from)!;
      const charged = {
        ...failure,
        spentUsd: event.costUsd,
        sessionCosts: event.sessionCosts ?? {},
      };
      enqueue.emit(failAgent(store, event.agentId, event.from, charged));
    }),
    /** A step came to the gate (at the start: any gate still pending): machines/gate-work.ts reviewGate. */
    stopAtGate: enqueueActions(({ context, event, enqueue }) => {
      const { work, gateStops } = context;
      // After a step, only its own agent can have come to a gate: no walk over every agent per step.
      const gated =
        event.type === 'step.done'
          ? event.record.ask?.gate
            ? [work.store.agents.get(event.agentId)!]
            : []
          : [...work.store.agents.values()].filter((a) => a.status === 'active' && a.ask?.gate);
      const live = event.type === 'step.done';
      if (gated.some((r) => reviewGate(work, r, gateStops, enqueue, live)))
        enqueue.assign({ draining: true });
    }),
    /** Answers a `--resume` gave to gates, applied before any agent runs. */
    answerGatesAtStart: enqueueActions(({ context, enqueue }) => {
      const { store } = context.work;
      for (const { askId, text } of context.gateAnswers) {
        const gated = [...store.agents.values()].find(
          (a) => a.status === 'active' && a.ask?.id === askId && a.ask.gate,
        );
        if (gated && settleGate(context.work, gated, text, enqueue, false))
          enqueue.assign({ draining: true });
      }
    }),
    refuseStep: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'step.done');
      enqueue.emit(refuseReusedId(context.work.store, event));
    }),
    failRun: ({ context }, params: { error: string }) =>
      setRunStatus(context.work.store, 'failed', params.error),
    registerAsker: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'agent.asking');
      const early = frameWaits(context.work.asks, event.agentId, event.ref);
      if (early)
        enqueue.sendTo(event.ref, {
          type: 'ask.resolved',
          record: early,
        } satisfies AskResolvedEvent);
    }),
    applyAnswer: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'run.answer');
      const gated = [...context.work.store.agents.values()].find(
        (a) => a.status === 'active' && a.ask?.id === event.askId && a.ask.gate,
      );
      if (gated) {
        if (settleGate(context.work, gated, event.text, enqueue))
          enqueue.assign({ draining: true });
        return;
      }
      const answered = answerInStore(context.work.store, event.askId, event.text);
      if (!answered) return;
      const ref = frameFor(context.work.asks, answered);
      if (ref)
        enqueue.sendTo(ref, { type: 'ask.resolved', record: answered } satisfies AskResolvedEvent);
      enqueue.emit({
        type: 'ask.answered',
        agentId: answered.id,
        askId: event.askId,
        expired: false,
        text: event.text,
      });
    }),
    expire: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'ask.expire');
      expireOne(context.work, event, enqueue, (ref) => enqueue(stopChild(ref)));
    }),
    expireDue: enqueueActions(({ context, enqueue }) => {
      let failed = false;
      for (const due of context.dueAsks)
        failed = expireOne(context.work, due, enqueue, (ref) => enqueue(stopChild(ref))) || failed;
      if (failed) enqueue.assign({ halted: true });
    }),
    /**
     * Queues new agents for a slot. An agent's actor is made when it first
     * gets one (startAgent): at fan-out thousands of agents wait, and an
     * actor each would cost their memory and the collector's time for
     * nothing. An agent resumed below the top of its stack gets its actor now:
     * its bottom frame waits for its callee, which announces itself.
     */
    spawnAgents: ({ context, self }) => {
      const pending = context.work.toSpawn.splice(0);
      if (context.halted) return;
      for (const record of pending) {
        // An agent resumed waiting (for an answer, for its workers, or for its callee) takes no slot: its actor waits.
        if (stackDepth(record.stack) === 0 && !record.ask && !record.joining)
          waitForSlot(context, record.id, undefined);
        else startAgent(context, self, record);
      }
    },
    /**
     * The agent of a step that goes on waits for its next slot, behind the
     * workers the step forked: queued here rather than by an event from the
     * agent, one event fewer per step.
     */
    queueContinuing: ({ context, event }) => {
      assertEvent(event, 'step.done');
      if (event.outcome === 'continue') waitForSlot(context, event.agentId, event.ref);
    },
    capMarkdown: ({ context, event }) => {
      assertEvent(event, 'slots.markdown');
      setMarkdownCap(context.work.slots, event.max);
    },
    noteWidth: ({ context, event }) => {
      assertEvent(event, 'account.width');
      putWidth(context.work.store, event.backend, event.width);
    },
    queue: ({ context, event }) => {
      assertEvent(event, 'agent.ready');
      waitForSlot(context, event.agentId, event.ref, context.version);
    },
    dispatch: enqueueActions(({ context, enqueue, self }) => {
      if (context.halted || context.draining) return;
      for (const { waiting, record, granted, started } of grantSteps(context)) {
        enqueue.sendTo(waiting.ref ?? startAgent(context, self, record), {
          type: 'step.start',
          ...granted,
        });
        enqueue.emit(started);
      }
    }),
    halt: enqueueActions(({ context, enqueue }) => {
      // Every step in flight is aborted, which kills its process group; its end is dropped.
      enqueue.sendTo(STEP_RUNNER_ID, { type: 'steps.abort' } satisfies StepRunnerEvent);
      for (const ref of context.work.actors.values()) enqueue(stopChild(ref));
      context.work.actors.clear();
      clearSlots(context.work.slots);
      clearReservations(context.work.budget);
      enqueue.assign({ halted: true });
    }),
  },
  guards: supervisorGuards,
});
