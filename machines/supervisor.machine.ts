import { assign, createActor, emit, enqueueActions, fromCallback, setup, stopChild, type AnyActorLogic, type AnyActorRef, type ErrorActorEvent } from 'xstate';
import { agentMachine, type AgentToSupervisorEvent } from './agent.machine.js';
import { workerId } from './apply-decision.js';
import { nextForkNumber, putAgent, putResult, putSessionCosts, type RunStore } from './run-store.js';
import type { AgentRecord, Decision, RunStatus } from './types.js';

export interface SupervisorInput {
  store: RunStore;
  maxParallel: number;
  /** Most markdown (Claude Code) steps at once, on top of maxParallel: each takes ~300 MB. */
  maxMarkdown?: number;
}

interface Waiting {
  agentId: string;
  ref: AnyActorRef;
  /** Store version that holds this agent's last step; it may start once that is on disk. */
  readyAt: number;
}

export interface SupervisorContext {
  store: RunStore;
  maxParallel: number;
  /** Bumped on every change to the store. */
  version: number;
  /** Highest version known to be on disk. */
  persisted: number;
  running: number;
  maxMarkdown: number;
  /** Agents whose running step is a markdown state. */
  runningMarkdown: Set<string>;
  queue: Waiting[];
  queueHead: number;
  /** Bottom frames of the agents, by agent id. */
  agents: Map<string, AnyActorRef>;
  /** Agent records waiting for their actor. */
  toSpawn: AgentRecord[];
  /** Set once no new step may start and running ones were stopped (a failure or an interrupt). */
  halted: boolean;
  /** Set once no new step may start but running ones may finish (the budget is spent). */
  draining: boolean;
}

export type SupervisorEvent =
  | AgentToSupervisorEvent
  | { type: 'state.persisted'; version: number }
  | { type: 'state.write_failed'; error: unknown }
  | { type: 'run.interrupt' }
  | { type: 'run.drain' }
  | ErrorActorEvent;

/** Events the supervisor emits for whoever reports progress. */
export type SupervisorEmitted =
  | { type: 'report.started'; agentId: string; state: string }
  | { type: 'report.step'; agentId: string; from: string; decision: Decision; record: AgentRecord; costUsd: number; spawned: AgentRecord[] }
  | { type: 'report.failed'; agentId: string; state: string; error: unknown };

/**
 * The persister is told of each new version and answers with
 * `state.persisted`. `compact` asks for a full snapshot (the run is ending).
 */
export type PersisterEvent = { type: 'state.changed'; version: number; compact?: boolean };

export interface SupervisorOutput {
  status: RunStatus;
  error?: string;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** What a failed step reports about itself (RaymondError's `pauses` and `details`). */
function failureInfo(error: unknown): { pauses: boolean; spentUsd: number; sessionCosts: Record<string, number>; resetsAt: number | undefined } {
  const e = (error ?? {}) as { pauses?: unknown; details?: { spentUsd?: unknown; sessionCosts?: unknown; resetsAt?: unknown } };
  return {
    pauses: e.pauses === true,
    resetsAt: typeof e.details?.resetsAt === 'number' ? e.details.resetsAt : undefined,
    spentUsd: typeof e.details?.spentUsd === 'number' ? e.details.spentUsd : 0,
    sessionCosts: (e.details?.sessionCosts as Record<string, number> | undefined) ?? {},
  };
}

/** Adds a step's cost; once the total passes the budget, no new step may start. */
function charge(context: SupervisorContext, costUsd: number, sessionCosts: Record<string, number> | undefined): void {
  const meta = context.store.meta;
  meta.total_cost_usd += costUsd;
  putSessionCosts(context.store, sessionCosts);
  const budget = meta.options.budget_usd;
  if (budget > 0 && meta.total_cost_usd > budget && meta.status === 'running') {
    meta.status = 'budget_exceeded';
    meta.error = `the budget of $${budget.toFixed(2)} is spent ($${meta.total_cost_usd.toFixed(4)}); no new step was started`;
    context.draining = true;
  }
}

/**
 * Owns the run: spawns one actor per agent, grants step slots (at most
 * `maxParallel` at a time, first come first served, and only once the
 * agent's last step is on disk), applies every step to the store and asks
 * the persister to write it. It is the only writer of the state file.
 */
export const supervisorMachine = setup({
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
  },
  actions: {
    changed: enqueueActions(({ context, enqueue }, params?: { compact?: boolean }) => {
      const version = context.version + 1;
      context.store.meta.updated_at = new Date().toISOString();
      enqueue.assign({ version });
      enqueue.sendTo('persister', { type: 'state.changed', version, compact: params?.compact ?? false } satisfies PersisterEvent);
    }),
    recordStep: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'step.done') return;
      const { store } = context;
      putAgent(store, event.record);
      charge(context, event.costUsd, event.sessionCosts);
      if (event.record.status === 'terminated') {
        putResult(store, event.agentId, event.record.result ?? '');
        context.agents.delete(event.agentId);
      }
      const spawned: AgentRecord[] = [];
      for (const spawn of event.spawns) {
        const n = nextForkNumber(store, event.agentId);
        const record: AgentRecord = {
          id: workerId(event.agentId, spawn.target, n),
          state: spawn.target,
          session: null,
          branchFrom: null,
          stack: [],
          cwd: spawn.cwd,
          attributes: spawn.attributes,
          input: spawn.input ?? null,
          status: 'active',
        };
        if (spawn.nextSession !== undefined) record.next_session = spawn.nextSession;
        if (spawn.worktree !== undefined) record.worktree = spawn.worktree;
        putAgent(store, record);
        spawned.push(record);
        context.toSpawn.push(record);
      }
      context.runningMarkdown.delete(event.agentId);
      enqueue.assign({ running: Math.max(0, context.running - 1) });
      enqueue.emit({ type: 'report.step', agentId: event.agentId, from: event.from, decision: event.decision, record: event.record, costUsd: event.costUsd, spawned });
    }),
    /**
     * Agents are actors of the supervisor's system with the supervisor as
     * parent, but not snapshot children: xstate copies a parent's children
     * map on every spawn and stop, which would make each agent cost O(n).
     */
    spawnAgents: ({ context, self }) => {
      const pending = context.toSpawn.splice(0);
      if (context.halted) return;
      const logic = (self as unknown as { logic: { implementations: { actors: Record<string, AnyActorLogic> } } }).logic.implementations.actors.agent!;
      for (const record of pending) {
        const ref = createActor(logic, { parent: self, id: record.id, systemId: `agent:${record.id}`, input: { record, depth: 0 } });
        context.agents.set(record.id, ref);
        ref.start();
      }
    },
    /**
     * Grants slots first come, first served. A markdown step that has to wait
     * for the memory cap is skipped over, not waited behind, so scripts keep
     * flowing; it keeps its place at the front for the next markdown slot.
     */
    dispatch: enqueueActions(({ context, enqueue }) => {
      let { running, queueHead } = context;
      const { queue } = context;
      const isMarkdown = (w: Waiting) => context.store.agents.get(w.agentId)!.state.endsWith('.md');
      const grant = (w: Waiting) => {
        running++;
        if (isMarkdown(w)) context.runningMarkdown.add(w.agentId);
        enqueue.sendTo(w.ref, { type: 'step.start' });
        enqueue.emit({ type: 'report.started', agentId: w.agentId, state: context.store.agents.get(w.agentId)!.state });
      };
      while (!context.halted && !context.draining && running < context.maxParallel && queueHead < queue.length) {
        const head = queue[queueHead]!;
        if (head.readyAt > context.persisted) break;
        if (!isMarkdown(head) || context.runningMarkdown.size < context.maxMarkdown) {
          queueHead++;
          grant(head);
          continue;
        }
        // The head waits for a markdown slot: serve the first persisted script step behind it.
        let i = queueHead + 1;
        while (i < queue.length && (queue[i]!.readyAt > context.persisted || isMarkdown(queue[i]!))) i++;
        if (i >= queue.length) break;
        grant(queue.splice(i, 1)[0]!);
      }
      // Drop the consumed prefix now and then, so the queue does not grow forever.
      if (queueHead > 1024 && queueHead * 2 > queue.length) {
        queue.splice(0, queueHead);
        queueHead = 0;
      }
      enqueue.assign({ running, queueHead });
    }),
    halt: enqueueActions(({ context, enqueue }) => {
      // Stopping an agent aborts its step, which kills the step's process group.
      for (const ref of context.agents.values()) enqueue(stopChild(ref));
      context.agents.clear();
      enqueue.assign({ halted: true, running: 0, queue: [], queueHead: 0 });
    }),
  },
  guards: {
    finished: ({ context }) => context.store.live === 0 || context.halted || (context.draining && context.running === 0),
    flushed: ({ context }) => context.persisted >= context.version,
  },
}).createMachine({
  id: 'supervisor',
  context: ({ input }) => ({
    store: input.store,
    maxParallel: Math.max(1, input.maxParallel),
    maxMarkdown: Math.max(1, input.maxMarkdown ?? Number.POSITIVE_INFINITY),
    runningMarkdown: new Set(),
    version: 0,
    persisted: 0,
    running: 0,
    queue: [],
    queueHead: 0,
    agents: new Map(),
    toSpawn: [...input.store.agents.values()].filter((a) => a.status === 'active'),
    halted: false,
    draining: false,
  }),
  invoke: { id: 'persister', src: 'persister', input: ({ context }) => ({ store: context.store }) },
  on: {
    // Handled at the top level so a step that completed while the run was halting is still recorded.
    'step.done': { actions: ['recordStep', 'spawnAgents', 'changed', 'dispatch'] },
    'state.persisted': { actions: [assign({ persisted: ({ context, event }) => Math.max(context.persisted, event.version) }), 'dispatch'] },
    'state.write_failed': {
      target: '.done',
      actions: [assign(({ context, event }) => {
        context.store.meta.status = 'failed';
        context.store.meta.error = `cannot write the state file: ${errorMessage(event.error)}`;
        return {};
      }), 'halt'],
    },
  },
  initial: 'running',
  states: {
    running: {
      entry: ['spawnAgents', 'changed'],
      always: { guard: 'finished', target: 'finishing' },
      on: {
        'agent.ready': {
          actions: [
            assign(({ context, event }) => {
              context.queue.push({ agentId: event.agentId, ref: event.ref, readyAt: context.version });
              return {};
            }),
            'dispatch',
          ],
        },
        'step.failed': [
          {
            description: 'Claude Code kept failing or hit a usage limit: pause this agent, let the others go on.',
            guard: ({ event }) => failureInfo(event.error).pauses,
            actions: [
              assign(({ context, event }) => {
                const info = failureInfo(event.error);
                const record = context.store.agents.get(event.agentId)!;
                const paused: AgentRecord = { ...record, status: 'paused', error: errorMessage(event.error) };
                if (info.resetsAt !== undefined) paused.resets_at = info.resetsAt;
                putAgent(context.store, paused);
                charge(context, info.spentUsd, info.sessionCosts);
                context.agents.delete(event.agentId);
                context.runningMarkdown.delete(event.agentId);
                return { running: Math.max(0, context.running - 1) };
              }),
              emit(({ event }) => ({ type: 'report.failed' as const, agentId: event.agentId, state: event.state, error: event.error })),
              'changed',
              'dispatch',
            ],
          },
          {
            actions: [
              assign(({ context, event }) => {
                const info = failureInfo(event.error);
                const record = context.store.agents.get(event.agentId)!;
                putAgent(context.store, { ...record, status: 'failed', error: errorMessage(event.error) });
                charge(context, info.spentUsd, info.sessionCosts);
                context.store.meta.status = 'failed';
                context.store.meta.error = errorMessage(event.error);
                return {};
              }),
              emit(({ event }) => ({ type: 'report.failed' as const, agentId: event.agentId, state: event.state, error: event.error })),
              'halt',
            ],
          },
        ],
        'xstate.error.actor.*': {
          actions: [
            assign(({ context, event }) => {
              context.store.meta.status = 'failed';
              context.store.meta.error = `internal error: ${errorMessage(event.error)}`;
              return {};
            }),
            'halt',
          ],
        },
        'run.interrupt': { actions: 'halt' },
        'run.drain': { description: 'First Ctrl-C: start nothing new, let running steps finish.', actions: [assign({ draining: true }), 'changed'] },
      },
    },
    finishing: {
      description: 'No step runs any more: record the final status and wait until it is on disk.',
      entry: [
        assign(({ context }) => {
          const meta = context.store.meta;
          if (meta.status === 'running' && context.store.live === 0) {
            const paused = [...context.store.agents.values()].filter((a) => a.status === 'paused');
            meta.status = paused.length > 0 ? 'paused' : 'completed';
            if (paused.length > 0) meta.error = `${paused.length} agent(s) paused: ${paused.map((a) => `${a.id}: ${a.error}`).join('; ')}`;
          }
          return {};
        }),
        'halt',
        { type: 'changed', params: { compact: true } },
      ],
      always: { guard: 'flushed', target: 'done' },
    },
    done: { type: 'final' },
  },
  output: ({ context }) => {
    const out: SupervisorOutput = { status: context.store.meta.status };
    if (context.store.meta.error !== undefined) out.error = context.store.meta.error;
    return out;
  },
});
