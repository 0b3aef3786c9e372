import { assign } from 'xstate';
import { createBudgetLine } from './budget-line.js';
import { createFrameWaiters } from './frame-waiters.js';
import { settleStatus } from './run-store.js';
import { createSlots } from './scheduler.js';
import { STEP_RUNNER_ID } from './step-runner.js';
import { errorText } from './step-failure.js';
import { supervisorSetup } from './supervisor-actions.js';
import type { SupervisorOutput } from './supervisor-types.js';

export type {
  PersisterEvent,
  SupervisorContext,
  SupervisorEmitted,
  SupervisorEvent,
  SupervisorInput,
  SupervisorOutput,
} from './supervisor-types.js';

/**
 * Owns the run: spawns one actor per agent, grants step slots (machines/
 * scheduler.ts), applies every step to the store, charges its cost (machines/
 * cost-ledger.ts) and asks the persister to write it. It is the only writer
 * of the state file.
 */
export const supervisorMachine = supervisorSetup.createMachine({
  id: 'supervisor',
  context: ({ input }) => ({
    work: {
      store: input.store,
      slots: createSlots(input.maxParallel, input.maxMarkdown),
      actors: new Map(),
      toSpawn: [...input.store.agents.values()].filter((a) => a.status === 'active'),
      asks: createFrameWaiters(),
      joins: createFrameWaiters(),
      budget: createBudgetLine(input.store.agents.values()),
    },
    version: 0,
    persisted: 0,
    halted: false,
    draining: false,
    stopWhenAsking: input.stopWhenAsking ?? false,
    dueAsks: input.dueAsks ?? [],
    gateStops: input.gateStops ?? false,
    gateAnswers: input.gateAnswers ?? [],
    reserve: input.reserve,
  }),
  invoke: [
    {
      id: 'persister',
      src: 'persister',
      input: ({ context }) => ({ store: context.work.store }),
    },
    // Frames find it by its system id; stopping the supervisor stops it, aborting every step.
    { id: STEP_RUNNER_ID, systemId: STEP_RUNNER_ID, src: 'steps' },
  ],
  on: {
    // Handled at the top level so a step that completed while the run was halting is still recorded.
    'step.done': [
      { guard: 'reusesId', actions: ['refuseStep', 'halt', 'changed'] },
      {
        description: 'The step forked past --max-agents: the agent fails, and the run with it.',
        guard: 'tooManyAgents',
        actions: ['refuseFork', 'halt', 'changed'],
      },
      {
        actions: [
          'recordStep',
          'stopAtGate',
          'resolveJoins',
          'spawnAgents',
          'queueContinuing',
          'changed',
          'dispatch',
        ],
      },
    ],
    'state.persisted': {
      actions: [
        assign({ persisted: ({ context, event }) => Math.max(context.persisted, event.version) }),
        'dispatch',
      ],
    },
    'state.write_failed': {
      target: '.done',
      actions: [
        { type: 'failRun', params: ({ event }) => ({ error: errorText(event.error) }) },
        'halt',
      ],
    },
  },
  initial: 'running',
  states: {
    running: {
      entry: [
        'expireDue',
        'answerGatesAtStart',
        'stopAtGate',
        'resolveJoins',
        'spawnAgents',
        'changed',
      ],
      always: { guard: 'finished', target: 'finishing' },
      on: {
        'agent.ready': { actions: ['queue', 'dispatch'] },
        'slots.markdown': { actions: ['capMarkdown', 'dispatch'] },
        'account.width': { actions: ['noteWidth', 'changed'] },
        'step.failed': [
          {
            description:
              'Claude Code kept failing or hit a usage limit: pause this agent, let the others go on.',
            guard: 'pauses',
            actions: ['pauseAgent', 'changed', 'dispatch'],
          },
          {
            description:
              "A forked worker failed: it ends, and its parent's join (if any) gets the failure; the others go on.",
            guard: 'isWorker',
            actions: ['failWorker', 'resolveJoins', 'changed', 'dispatch'],
          },
          { actions: ['failAgent', 'halt'] },
        ],
        'xstate.error.actor.*': {
          actions: [
            {
              type: 'failRun',
              params: ({ event }) => ({ error: `internal error: ${errorText(event.error)}` }),
            },
            'halt',
          ],
        },
        'run.interrupt': { actions: 'halt' },
        'agent.asking': { actions: 'registerAsker' },
        'agent.joining': { actions: 'registerJoiner' },
        'run.answer': {
          actions: ['applyAnswer', 'resolveJoins', 'spawnAgents', 'changed', 'dispatch'],
        },
        'ask.expire': [
          {
            description:
              'An ask without timeout_next ran out of time: its agent fails, and the run with it.',
            guard: 'expiryFails',
            actions: ['expire', 'halt', 'changed'],
          },
          { actions: ['expire', 'resolveJoins', 'changed', 'dispatch'] },
        ],
        'run.drain': {
          description: 'First Ctrl-C: start nothing new, let running steps finish.',
          actions: [assign({ draining: true }), 'changed'],
        },
      },
    },
    finishing: {
      description: 'No step runs any more: record the final status and wait until it is on disk.',
      entry: [
        ({ context }) => settleStatus(context.work.store),
        'halt',
        { type: 'changed', params: { compact: true } },
      ],
      always: { guard: 'flushed', target: 'done' },
    },
    done: { type: 'final' },
  },
  output: ({ context }) => {
    const meta = context.work.store.meta;
    const out: SupervisorOutput = { status: meta.status };
    if (meta.error !== undefined) out.error = meta.error;
    return out;
  },
});
