import { assign, stopChild, type AnyActorLogic, type AnyActorRef } from 'xstate';
import { outcomeOf } from './apply-decision.js';
import { agentSetup, frameId, handedBack, NO_GRANT } from './agent-actions.js';
import type { AgentInput } from './agent-types.js';
import { stackDepth } from './frame-stack.js';

export type { StepInput, StepResult } from './agent-types.js';

/**
 * One frame of an agent. It waits in `idle` for the supervisor to grant a
 * slot and runs one state in `invoking`. The agent's bottom frame (depth 0)
 * waits in `awaiting-child` while anything is on its return stack, with the
 * top frame, and only that one, running as its child actor: a callee frame
 * actor ends when it calls or returns, and the bottom frame spawns the new
 * top frame. So an agent is at most two actors, and a step costs the same at
 * any depth; the frames in between are data (the record's stack).
 */
export const agentMachine = agentSetup.createMachine({
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
              ...(event.gate ? { gate: event.gate } : {}),
              ...(event.refused ? { refused: event.refused } : {}),
            }),
          }),
        },
      },
    },
    invoking: {
      description:
        'Running the current state (a script or a Claude Code turn) and reading its transition.',
      entry: 'runStep',
      on: {
        'step.finished': [
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
        'step.errored': { target: 'terminated', actions: 'reportFailure' },
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
                  handedBack({ event }) && stackDepth(event.output.record.stack) > 0,
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
