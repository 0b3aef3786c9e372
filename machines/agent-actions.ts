import {
  assertEvent,
  assign,
  enqueueActions,
  setup,
  type AnyActorRef,
  type DoneActorEvent,
} from 'xstate';
import { applyDecision } from './apply-decision.js';
import type {
  AgentContext,
  AgentEvent,
  AgentInput,
  AgentOutput,
  AgentToSupervisorEvent,
  StepGrant,
} from './agent-types.js';
import { stackDepth } from './frame-stack.js';
import { asStepFailure } from './step-failure.js';
import { STEP_RUNNER_ID, type StepRunnerEvent } from './step-runner.js';
import { withStart } from './worktree-start.js';

/** Actor id of a frame: the agent id, with `@depth` for callee frames. */
export function frameId(agentId: string, depth: number): string {
  return depth === 0 ? agentId : `${agentId}@${depth}`;
}

/** A frame's way to the run-wide actors it sends to, by their system ids. */
const inSystem =
  (id: string) =>
  ({ system }: { system: { get: (id: string) => AnyActorRef | undefined } }): AnyActorRef =>
    system.get(id)!;
const supervisorRef = inSystem('supervisor');
const stepRunnerRef = inSystem(STEP_RUNNER_ID);

/** The grant of a frame that has not had a slot yet. */
export const NO_GRANT: StepGrant = { forkCount: 0, sessionCosts: {} };

/** A frame actor's end, as its parent frame gets it. */
export type Done = DoneActorEvent<AgentOutput>;

/** Whether an ended callee frame handed the agent back to its bottom frame (it called or returned) rather than ending it. */
export const handedBack = ({ event }: { event: unknown }) =>
  ['called', 'returned'].includes((event as Done).output.kind);

/**
 * The agent machine's setup: its types, and the guards and actions its
 * states name. Apart from the machine (machines/agent.machine.ts) so that
 * file holds only the states and how they move.
 */
export const agentSetup = setup({
  types: {
    input: {} as AgentInput,
    context: {} as AgentContext,
    events: {} as AgentEvent,
    output: {} as AgentOutput,
  },
  guards: {
    hasCallee: ({ context }) => context.depth < stackDepth(context.record.stack),
    waitsForAnswer: ({ context }) => context.record.ask !== undefined,
    waitsForWorkers: ({ context }) => context.record.joining === true,
  },
  actions: {
    /** Hands the frame's step to the run's step runner (machines/step-runner.ts), which sends back how it ended. */
    runStep: enqueueActions(({ context, enqueue, self }) => {
      enqueue.sendTo(stepRunnerRef, {
        type: 'step.run',
        input: { record: context.record, ...context.grant },
        frame: self,
      } satisfies StepRunnerEvent);
    }),
    recordStep: enqueueActions(({ context, event, enqueue, self }) => {
      assertEvent(event, 'step.finished');
      const output = event.output;
      const record = output.acquired ? { ...context.record, ...output.acquired } : context.record;
      const applied = applyDecision(record, output.decision, output.session, output.freshSessions);
      const next = withStart(applied.record, output.startsNext);
      enqueue.assign({ record: next });
      enqueue.sendTo(supervisorRef, {
        type: 'step.done',
        agentId: context.record.id,
        ref: self,
        from: context.record.state,
        decision: output.decision,
        record: next,
        spawns: applied.spawns,
        costUsd: output.costUsd,
        sessionCosts: output.sessionCosts,
        outcome: applied.outcome,
      } satisfies AgentToSupervisorEvent);
    }),
    takeRecord: assign({
      record: ({ event }) => {
        assertEvent(event, 'xstate.done.actor.*');
        return event.output.record;
      },
    }),
    /**
     * Tells the supervisor of a frame waiting for a slot that it does not
     * know of: a callee frame's first step, or a bottom frame its callee
     * handed back to. The supervisor queues the bottom frames it creates and
     * every frame whose step goes on in it (step.done) itself: one event
     * fewer per step.
     */
    announce: enqueueActions(({ context, event, self, enqueue }) => {
      if (
        context.depth < stackDepth(context.record.stack) ||
        context.record.ask ||
        context.record.joining
      )
        return;
      // xstate enters the initial state with its own init event, which the event type does not list.
      const type = event.type as string;
      const unknown = type === 'xstate.init' ? context.depth > 0 : type !== 'step.finished';
      if (unknown)
        enqueue.sendTo(supervisorRef, {
          type: 'agent.ready',
          agentId: context.record.id,
          ref: self,
        } satisfies AgentToSupervisorEvent);
    }),
    /** Tells the supervisor that this frame waits for what only it hands out: an answer (`agent.asking`) or its workers' end (`agent.joining`). */
    sayWaiting: enqueueActions(
      ({ context, self, enqueue }, params: { type: 'agent.asking' | 'agent.joining' }) => {
        enqueue.sendTo(supervisorRef, {
          type: params.type,
          agentId: context.record.id,
          ref: self,
        } satisfies AgentToSupervisorEvent);
      },
    ),
    reportFailure: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, ['step.errored', 'xstate.error.actor.*']);
      const failure = asStepFailure(event.error);
      enqueue.sendTo(supervisorRef, {
        type: 'step.failed',
        agentId: context.record.id,
        state: context.record.state,
        failure,
      } satisfies AgentToSupervisorEvent);
      enqueue.assign({ record: { ...context.record, status: 'failed' } });
    }),
  },
});
