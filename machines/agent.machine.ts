import {
  assertEvent,
  assign,
  enqueueActions,
  fromPromise,
  setup,
  stopChild,
  type AnyActorLogic,
  type AnyActorRef,
  type DoneActorEvent,
  type ErrorActorEvent,
} from 'xstate';
import { applyDecision, outcomeOf, type SpawnRequest, type StepOutcome } from './apply-decision.js';
import { stackDepth } from './frame-stack.js';
import { asStepFailure, type StepFailure } from './step-failure.js';
import type { AgentRecord, ResolvedDecision, WorktreeRef } from './types.js';

/**
 * Input of one frame actor. Depth 0 is the agent's bottom frame, the actor
 * the supervisor holds; a callee frame's depth is the number of return
 * frames below it.
 */
export interface AgentInput {
  record: AgentRecord;
  depth: number;
}

/** What the supervisor hands an agent with its step slot: the run's figures the step needs. */
export interface StepGrant {
  /** The agent's fork counter as persisted: its workers are named from it. */
  forkCount: number;
  /** Last known totals of the sessions the step may continue. */
  sessionCosts: Record<string, number>;
}

/** What the step actor reports for one state execution. */
export interface StepResult {
  /** The decision with its targets resolved and its workers named. */
  decision: ResolvedDecision;
  /** Session the step ran in; null for scripts. */
  session: string | null;
  costUsd: number;
  /** Last known total cost of each Claude Code session the step used. */
  sessionCosts?: Record<string, number>;
  /** New session ids to reserve: the agent's own, then one per forked worker. */
  freshSessions?: string[];
  /** The agent's worktree folder, when the step got it one (its first run): the record takes it before the decision applies. */
  acquired?: { cwd: string; worktree: WorktreeRef };
}

/** Input of the step actor: the agent as it stands, and its grant. */
export interface StepInput extends StepGrant {
  record: AgentRecord;
}

export interface AgentContext {
  record: AgentRecord;
  depth: number;
  callee: AnyActorRef | null;
  grant: StepGrant;
}

/**
 * How a frame actor ended, handed to the agent's bottom frame (or, for the
 * bottom frame, to the supervisor): it `called` (its callee is the new top
 * frame), `returned` (the frame below it is), the agent `terminated`, or it
 * `failed`.
 */
export interface AgentOutput {
  kind: 'called' | 'returned' | 'terminated' | 'failed';
  record: AgentRecord;
}

/** The supervisor's answer to a frame waiting in `asking`: the agent's record with the answer (or the timeout) applied. */
export type AskResolvedEvent = { type: 'ask.resolved'; record: AgentRecord };

/** The supervisor's answer to a frame waiting on a `<join>`: the agent's record with its workers' entries as input. */
export type JoinResolvedEvent = { type: 'join.resolved'; record: AgentRecord };

/** Everything a frame actor takes: its slot, the supervisor's answers, its step's end (`xstate.done.actor.step`) and its callee's. */
export type AgentEvent =
  | ({ type: 'step.start' } & StepGrant)
  | AskResolvedEvent
  | JoinResolvedEvent
  | DoneActorEvent<StepResult, 'step'>
  | DoneActorEvent<AgentOutput>
  | ErrorActorEvent;

/** Events an agent sends to the actor registered with systemId `supervisor`. */
export type AgentToSupervisorEvent =
  | { type: 'agent.ready'; agentId: string; ref: AnyActorRef }
  | {
      type: 'step.done';
      agentId: string;
      /** The frame that ran the step: the supervisor queues it again when it goes on. */
      ref: AnyActorRef;
      from: string;
      decision: ResolvedDecision;
      record: AgentRecord;
      spawns: SpawnRequest[];
      costUsd: number;
      sessionCosts?: Record<string, number>;
      outcome: StepOutcome;
    }
  | { type: 'step.failed'; agentId: string; state: string; failure: StepFailure }
  /** A frame waits for the answer to its agent's ask: the supervisor sends it `ask.resolved`. */
  | { type: 'agent.asking'; agentId: string; ref: AnyActorRef }
  /** A frame waits for its agent's workers (`<join>`): the supervisor sends it `join.resolved`. */
  | { type: 'agent.joining'; agentId: string; ref: AnyActorRef };

/** Actor id of a frame: the agent id, with `@depth` for callee frames. */
export function frameId(agentId: string, depth: number): string {
  return depth === 0 ? agentId : `${agentId}@${depth}`;
}

const supervisorRef = ({
  system,
}: {
  system: { get: (id: string) => AnyActorRef | undefined };
}): AnyActorRef => system.get('supervisor')!;

const NO_GRANT: StepGrant = { forkCount: 0, sessionCosts: {} };

type Done = DoneActorEvent<AgentOutput>;

/** Whether an ended callee frame handed the agent back to its bottom frame (it called or returned) rather than ending it. */
const handedBack = ({ event }: { event: unknown }) =>
  ['called', 'returned'].includes((event as Done).output.kind);

/**
 * One frame of an agent. It waits in `idle` for the supervisor to grant a
 * slot and runs one state in `invoking`. The agent's bottom frame (depth 0)
 * waits in `awaiting-child` while anything is on its return stack, with the
 * top frame, and only that one, running as its child actor: a callee frame
 * actor ends when it calls or returns, and the bottom frame spawns the new
 * top frame. So an agent is at most two actors, and a step costs the same at
 * any depth; the frames in between are data (the record's stack).
 */
export const agentMachine = setup({
  types: {
    input: {} as AgentInput,
    context: {} as AgentContext,
    events: {} as AgentEvent,
    output: {} as AgentOutput,
  },
  actors: {
    // Provided at the composition root; tests provide fakes.
    runStep: fromPromise<StepResult, StepInput>(async () => {
      throw new Error('runStep actor not provided');
    }),
  },
  guards: {
    hasCallee: ({ context }) => context.depth < stackDepth(context.record.stack),
    waitsForAnswer: ({ context }) => context.record.ask !== undefined,
    waitsForWorkers: ({ context }) => context.record.joining === true,
  },
  actions: {
    recordStep: enqueueActions(({ context, event, enqueue, self }) => {
      assertEvent(event, 'xstate.done.actor.step');
      const output = event.output;
      const record = output.acquired ? { ...context.record, ...output.acquired } : context.record;
      const applied = applyDecision(record, output.decision, output.session, output.freshSessions);
      enqueue.assign({ record: applied.record });
      enqueue.sendTo(supervisorRef, {
        type: 'step.done',
        agentId: context.record.id,
        ref: self,
        from: context.record.state,
        decision: output.decision,
        record: applied.record,
        spawns: applied.spawns,
        costUsd: output.costUsd,
        sessionCosts: output.sessionCosts,
        outcome: applied.outcome,
      } satisfies AgentToSupervisorEvent);
    }),
    takeRecord: assign({
      record: ({ event }) => {
        assertEvent(event, 'xstate.done.actor.*');
        return (event as Done).output.record;
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
      const unknown =
        type === 'xstate.init' ? context.depth > 0 : type !== 'xstate.done.actor.step';
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
      assertEvent(event, 'xstate.error.actor.*');
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
}).createMachine({
  id: 'agent',
  context: ({ input }) => ({
    record: input.record,
    depth: input.depth,
    callee: null,
    grant: NO_GRANT,
  }),
  initial: 'idle',
  states: {
    idle: {
      description:
        'Waiting for the supervisor to grant a step slot. A bottom frame resumed with frames on its stack goes straight on to wait for its top frame; a frame resumed with a pending ask, to wait for the answer; one resumed in a join, to wait for its workers.',
      always: [
        { guard: 'hasCallee', target: 'awaiting-child' },
        { guard: 'waitsForAnswer', target: 'asking' },
        { guard: 'waitsForWorkers', target: 'awaiting-child.workers' },
      ],
      entry: 'announce',
      on: {
        'step.start': {
          target: 'invoking',
          actions: assign({
            grant: ({ event }) => ({
              forkCount: event.forkCount,
              sessionCosts: event.sessionCosts,
            }),
          }),
        },
      },
    },
    invoking: {
      description:
        'Running the current state (a script or a Claude Code turn) and reading its transition.',
      invoke: {
        id: 'step',
        src: 'runStep',
        input: ({ context }) => ({ record: context.record, ...context.grant }),
        onDone: [
          {
            description: 'The state asked a question (<ask>): this frame waits for the answer.',
            guard: ({ context, event }) =>
              outcomeOf(context.record, event.output.decision) === 'ask',
            target: 'asking',
            actions: 'recordStep',
          },
          {
            description:
              'The state joined (<join>): this frame waits for the workers its agent forked.',
            guard: ({ context, event }) =>
              outcomeOf(context.record, event.output.decision) === 'join',
            target: 'awaiting-child.workers',
            actions: 'recordStep',
          },
          {
            description: 'The bottom frame called: it waits for its callee.',
            guard: ({ context, event }) =>
              context.depth === 0 && outcomeOf(context.record, event.output.decision) === 'call',
            target: 'awaiting-child',
            actions: 'recordStep',
          },
          {
            description:
              'A callee frame called or returned, or the agent terminated: this frame actor is done; the bottom frame goes on with the new top.',
            guard: ({ context, event }) =>
              outcomeOf(context.record, event.output.decision) !== 'continue',
            target: 'terminated',
            actions: 'recordStep',
          },
          { target: 'idle', actions: 'recordStep' },
        ],
        onError: { target: 'terminated', actions: 'reportFailure' },
      },
    },
    'awaiting-child': {
      description:
        'The frame waits for a child: its callee frame (a call), or the workers its agent forked (a join). It takes no step slot and runs no process meanwhile.',
      initial: 'callee',
      states: {
        callee: {
          description:
            'The bottom frame has frames on its stack: the top frame runs as its child actor until it calls or returns.',
          entry: assign({
            callee: ({ context, spawn, self }) => {
              const depth = stackDepth(context.record.stack);
              const id = frameId(context.record.id, depth);
              // The callee runs this frame's own logic, with whatever was provided to it.
              // xstate's types forbid an `id` for inline logic, but its runtime honours it,
              // and the id is what makes callees readable in the inspector.
              const logic = (self as unknown as { logic: AnyActorLogic }).logic;
              const spawnInline = spawn as unknown as (
                logic: AnyActorLogic,
                options: { id: string; systemId: string; input: AgentInput },
              ) => AnyActorRef;
              return spawnInline(logic, {
                id,
                systemId: `agent:${id}`,
                input: { record: context.record, depth },
              });
            },
          }),
          // A finished child stays in xstate's children map until stopped, and every spawn copies that map.
          exit: [stopChild(({ context }) => context.callee!), assign({ callee: null })],
          on: {
            'xstate.done.actor.*': [
              {
                guard: ({ event }) =>
                  handedBack({ event }) && stackDepth((event as Done).output.record.stack) > 0,
                target: 'callee',
                reenter: true,
                actions: 'takeRecord',
              },
              { guard: handedBack, target: '#agent.idle', actions: 'takeRecord' },
              { target: '#agent.terminated', actions: 'takeRecord' },
            ],
            'xstate.error.actor.*': { target: '#agent.terminated', actions: 'reportFailure' },
          },
        },
        workers: {
          description:
            'The state joined (<join>): the frame waits, holding nothing, until every worker its agent forked and has not joined yet has ended; the supervisor then hands it their results.',
          entry: { type: 'sayWaiting', params: { type: 'agent.joining' } },
          on: {
            'join.resolved': {
              target: '#agent.idle',
              actions: assign({ record: ({ event }) => event.record }),
            },
          },
        },
      },
    },
    asking: {
      description:
        'The agent asked a question (<ask>) and waits, taking no step slot, until the supervisor hands it the answer or the ask times out.',
      entry: { type: 'sayWaiting', params: { type: 'agent.asking' } },
      on: {
        'ask.resolved': {
          target: 'idle',
          actions: assign({ record: ({ event }) => event.record }),
        },
      },
    },
    terminated: { type: 'final' },
  },
  output: ({ context }) => {
    const { status, stack } = context.record;
    const kind =
      status === 'failed'
        ? 'failed'
        : status === 'terminated'
          ? 'terminated'
          : stackDepth(stack) > context.depth
            ? 'called'
            : 'returned';
    return { kind, record: context.record };
  },
});
