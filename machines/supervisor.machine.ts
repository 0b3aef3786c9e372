import { assign, createActor, enqueueActions, fromCallback, setup, stopChild, type AnyActorLogic, type AnyActorRef, type ErrorActorEvent } from 'xstate';
import { agentMachine, type AgentToSupervisorEvent, type AskResolvedEvent, type JoinResolvedEvent, type StepGrant } from './agent.machine.js';
import { workerRecord } from './apply-decision.js';
import { createFrameWaiters, frameFor, frameWaits, type FrameWaiters } from './frame-waiters.js';
import { resolveReadyJoins } from './joins.js';
import { answerInStore, expireInStore } from './run-asks.js';
import { charge, sessionCostsFor } from './cost-ledger.js';
import { stackDepth } from './frame-stack.js';
import type { RunEvent } from './run-events.js';
import { advanceForkCounter, putAgent, putResult, reusedId, setRunStatus, settleStatus, type RunStore } from './run-store.js';
import { clearSlots, createSlots, enqueue, grant, release, type Slots } from './scheduler.js';
import { errorText, failureText, type StepFailure } from './step-failure.js';
import type { AgentRecord, RunStatus } from './types.js';

export interface SupervisorInput {
  store: RunStore;
  maxParallel: number;
  /** Most markdown (Claude Code) steps at once, on top of maxParallel: each takes ~300 MB. */
  maxMarkdown?: number;
  /** `--on-ask=pause`: end the run (status `asking`) once every live agent waits for an answer; else wait for answers. */
  stopWhenAsking?: boolean;
  /** Asks whose time ran out before the run (re)started: settled before anything else, as if they had just expired. */
  dueAsks?: ReadonlyArray<{ agentId: string; askId: string }>;
}

/**
 * The run's working set. These objects are changed in place, by the actions
 * below only, through their own modules: at fan-out they hold thousands of
 * agents, and copying them on every step (as `assign` would) costs O(agents)
 * per step (measured: README, Architecture). Everything else in the context
 * is updated with `assign`.
 */
export interface RunWork {
  store: RunStore;
  /** Agents waiting for a slot; an agent that has not run yet has no actor (undefined) until it gets one. */
  slots: Slots<AnyActorRef | undefined>;
  /** Bottom frames of the live agents that have an actor, by agent id. */
  actors: Map<string, AnyActorRef>;
  /** Agent records new to the supervisor (forked, or live when the run started). */
  toSpawn: AgentRecord[];
  /** Frames waiting for answers to their agents' asks. */
  asks: FrameWaiters;
  /** Frames waiting for their agents' workers (`<join>`). */
  joins: FrameWaiters;
}

export interface SupervisorContext {
  work: RunWork;
  /** Bumped on every change to the store. */
  version: number;
  /** Highest version known to be on disk. */
  persisted: number;
  /** Set once no new step may start and running ones were stopped (a failure or an interrupt). */
  halted: boolean;
  /** Set once no new step may start but running ones may finish (the budget is spent, or a first Ctrl-C). */
  draining: boolean;
  stopWhenAsking: boolean;
  dueAsks: ReadonlyArray<{ agentId: string; askId: string }>;
}

export type SupervisorEvent =
  | AgentToSupervisorEvent
  | { type: 'state.persisted'; version: number }
  /** The persister could not write; its error's message names the file and says what failed. */
  | { type: 'state.write_failed'; error: unknown }
  | { type: 'run.interrupt' }
  | { type: 'run.drain' }
  /** An answer to a pending ask (from the terminal or another front end); unknown or answered asks are ignored. */
  | { type: 'run.answer'; askId: string; text: string }
  /** A pending ask's time ran out (the runtime keeps the clock). */
  | { type: 'ask.expire'; agentId: string; askId: string }
  | ErrorActorEvent;

/** The part of the run's event stream the supervisor produces. */
export type SupervisorEmitted = Extract<RunEvent, { type: 'step.started' | 'step.done' | 'agent.forked' | 'agent.paused' | 'agent.failed' | 'agent.joined' | 'ask.created' | 'ask.answered' }>;

/**
 * The persister is told of each new version and answers with
 * `state.persisted`. `compact` asks for a full snapshot (the run is ending).
 */
export type PersisterEvent = { type: 'state.changed'; version: number; compact?: boolean };

export interface SupervisorOutput {
  status: RunStatus;
  error?: string;
}

/**
 * Queues an agent for a slot once the store version `readyAt` is on disk: by
 * default the version being recorded, for actions that run before `changed`
 * bumps it.
 */
function waitForSlot(context: SupervisorContext, agentId: string, ref: AnyActorRef | undefined, readyAt = context.version + 1): void {
  const record = context.work.store.agents.get(agentId)!;
  const holder = record.worktree?.path !== undefined && record.worktree.removed === undefined;
  enqueue(context.work.slots, { agentId, ref, readyAt, markdown: record.state.endsWith('.md'), holder });
}

/** An agent's record with what a step of it cost added to its own total. */
function withCost<T extends AgentRecord>(store: RunStore, record: T, costUsd: number): T {
  const total = (store.agents.get(record.id)?.cost_usd ?? 0) + costUsd;
  return total > 0 ? { ...record, cost_usd: total } : record;
}

/**
 * Records an agent's failure and returns the event that says so. A forked
 * worker's failure ends that worker only (its parent's join, if any, gets it
 * as a failed entry); any other agent's fails the run.
 */
function failAgent(store: RunStore, agentId: string, state: string, failure: StepFailure): SupervisorEmitted {
  const record = store.agents.get(agentId)!;
  putAgent(store, withCost(store, { ...record, status: 'failed', error: failureText(failure) }, failure.spentUsd));
  charge(store, failure.spentUsd, failure.sessionCosts);
  if (record.parent === undefined || failure.halts) {
    setRunStatus(store, 'failed', failureText(failure));
    return { type: 'agent.failed', agentId, state, failure, totalCostUsd: store.meta.total_cost_usd };
  }
  return { type: 'agent.failed', agentId, state, failure, totalCostUsd: store.meta.total_cost_usd, worker: true };
}

/**
 * Makes and starts an agent's bottom-frame actor. Agents are actors of the
 * supervisor's system with the supervisor as parent, but not snapshot
 * children: xstate copies a parent's children map on every spawn and stop,
 * which would make each agent cost O(n).
 */
function startAgent(context: SupervisorContext, self: AnyActorRef, record: AgentRecord): AnyActorRef {
  const logic = (self as unknown as { logic: { implementations: { actors: Record<string, AnyActorLogic> } } }).logic.implementations.actors.agent!;
  const ref = createActor(logic, { parent: self, id: record.id, systemId: `agent:${record.id}`, input: { record, depth: 0 } });
  context.work.actors.set(record.id, ref);
  ref.start();
  return ref;
}

type Enqueue = { sendTo: (ref: AnyActorRef, event: AskResolvedEvent | JoinResolvedEvent) => void; emit: (event: SupervisorEmitted) => void };

/** Hands every join whose workers have all ended its entries, or keeps them until its frame waits. */
function settleJoins(work: RunWork, enqueue: Enqueue): void {
  // The count comes with the join: its input may hold thousands of entries, not worth parsing again.
  for (const { record, workers } of resolveReadyJoins(work.store)) {
    const ref = frameFor(work.joins, record);
    if (ref) enqueue.sendTo(ref, { type: 'join.resolved', record });
    enqueue.emit({ type: 'agent.joined', agentId: record.id, state: record.state, workers });
  }
}

/** Settles an ask whose time ran out (if still pending); true when its agent fails, and the run with it. */
function expireOne(work: RunWork, due: { agentId: string; askId: string }, enqueue: Enqueue, stop: (ref: AnyActorRef) => void): boolean {
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
 * Owns the run: spawns one actor per agent, grants step slots (machines/
 * scheduler.ts), applies every step to the store, charges its cost (machines/
 * cost-ledger.ts) and asks the persister to write it. It is the only writer
 * of the state file.
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
      context.work.store.meta.updated_at = new Date().toISOString();
      enqueue.assign({ version });
      enqueue.sendTo('persister', { type: 'state.changed', version, compact: params?.compact ?? false } satisfies PersisterEvent);
    }),
    recordStep: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'step.done') return;
      const { store, slots, actors, toSpawn } = context.work;
      putAgent(store, withCost(store, event.record, event.costUsd));
      if (charge(store, event.costUsd, event.sessionCosts)) enqueue.assign({ draining: true });
      if (event.record.status === 'terminated') {
        putResult(store, event.agentId, event.record.result ?? '');
        actors.delete(event.agentId);
      }
      const workers = event.spawns.map(workerRecord);
      advanceForkCounter(store, event.agentId, workers.length);
      for (const w of workers) {
        putAgent(store, w);
        toSpawn.push(w);
        enqueue.emit({ type: 'agent.forked', parentId: event.agentId, id: w.id, state: w.state, attributes: w.attributes });
      }
      release(slots, event.agentId);
      if (event.outcome === 'ask' && event.record.ask) enqueue.emit({ type: 'ask.created', ask: { ...event.record.ask, agent_id: event.agentId } });
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
      if (event.type !== 'step.failed') return;
      const { store, slots, actors } = context.work;
      const { failure } = event;
      const record = store.agents.get(event.agentId)!;
      const paused: AgentRecord = { ...record, status: 'paused', error: failureText(failure) };
      if (failure.resetsAt !== undefined) paused.resets_at = failure.resetsAt;
      putAgent(store, withCost(store, paused, failure.spentUsd));
      if (charge(store, failure.spentUsd, failure.sessionCosts)) enqueue.assign({ draining: true });
      actors.delete(event.agentId);
      release(slots, event.agentId);
      enqueue.emit({ type: 'agent.paused', agentId: event.agentId, state: event.state, failure, totalCostUsd: store.meta.total_cost_usd });
    }),
    failAgent: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'step.failed') return;
      enqueue.emit(failAgent(context.work.store, event.agentId, event.state, event.failure));
    }),
    /** A forked worker failed: it ends, the others go on. */
    failWorker: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'step.failed') return;
      const { store, slots, actors } = context.work;
      enqueue.emit(failAgent(store, event.agentId, event.state, event.failure));
      actors.delete(event.agentId);
      release(slots, event.agentId);
    }),
    registerJoiner: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'agent.joining') return;
      const early = frameWaits(context.work.joins, event.agentId, event.ref);
      if (early) enqueue.sendTo(event.ref, { type: 'join.resolved', record: early } satisfies JoinResolvedEvent);
    }),
    resolveJoins: enqueueActions(({ context, enqueue }) => settleJoins(context.work, enqueue)),
    refuseStep: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'step.done') return;
      const { store } = context.work;
      const id = reusedId(store, event.spawns.map((s) => s.id))!;
      // Worker names are unique by construction; if that ever breaks, fail the run rather than overwrite an agent.
      const failure: StepFailure = {
        kind: 'step-failure',
        code: 'ERR_WORKER_ID',
        message: `<fork> named a worker "${id}", an id this run already has; no agent was overwritten and the step is not recorded`,
        file: event.from,
        pauses: false,
        spentUsd: event.costUsd,
        sessionCosts: event.sessionCosts ?? {},
      };
      enqueue.emit(failAgent(store, event.agentId, event.from, failure));
      setRunStatus(store, 'failed', failureText(failure));
    }),
    failRun: ({ context }, params: { error: string }) => setRunStatus(context.work.store, 'failed', params.error),
    registerAsker: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'agent.asking') return;
      const early = frameWaits(context.work.asks, event.agentId, event.ref);
      if (early) enqueue.sendTo(event.ref, { type: 'ask.resolved', record: early } satisfies AskResolvedEvent);
    }),
    applyAnswer: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'run.answer') return;
      const answered = answerInStore(context.work.store, event.askId, event.text);
      if (!answered) return;
      const ref = frameFor(context.work.asks, answered);
      if (ref) enqueue.sendTo(ref, { type: 'ask.resolved', record: answered } satisfies AskResolvedEvent);
      enqueue.emit({ type: 'ask.answered', agentId: answered.id, askId: event.askId, expired: false });
    }),
    expire: enqueueActions(({ context, event, enqueue }) => {
      if (event.type === 'ask.expire') expireOne(context.work, event, enqueue, (ref) => enqueue(stopChild(ref)));
    }),
    expireDue: enqueueActions(({ context, enqueue }) => {
      let failed = false;
      for (const due of context.dueAsks) failed = expireOne(context.work, due, enqueue, (ref) => enqueue(stopChild(ref))) || failed;
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
        if (stackDepth(record.stack) === 0 && !record.ask && !record.joining) waitForSlot(context, record.id, undefined);
        else startAgent(context, self, record);
      }
    },
    /**
     * The agent of a step that goes on waits for its next slot, behind the
     * workers the step forked: queued here rather than by an event from the
     * agent, one event fewer per step.
     */
    queueContinuing: ({ context, event }) => {
      if (event.type === 'step.done' && event.outcome === 'continue') waitForSlot(context, event.agentId, event.ref);
    },
    queue: ({ context, event }) => {
      if (event.type === 'agent.ready') waitForSlot(context, event.agentId, event.ref, context.version);
    },
    dispatch: enqueueActions(({ context, enqueue, self }) => {
      if (context.halted || context.draining) return;
      const { store, slots } = context.work;
      for (const w of grant(slots, context.persisted)) {
        const record = store.agents.get(w.agentId)!;
        const granted: StepGrant = { forkCount: store.meta.fork_counters[w.agentId] ?? 0, sessionCosts: sessionCostsFor(store, [record.session, record.branchFrom, record.next_session]) };
        enqueue.sendTo(w.ref ?? startAgent(context, self, record), { type: 'step.start', ...granted });
        enqueue.emit(record.scope ? { type: 'step.started', agentId: w.agentId, state: record.state, scope: record.scope } : { type: 'step.started', agentId: w.agentId, state: record.state });
      }
    }),
    halt: enqueueActions(({ context, enqueue }) => {
      // Stopping an agent aborts its step, which kills the step's process group.
      for (const ref of context.work.actors.values()) enqueue(stopChild(ref));
      context.work.actors.clear();
      clearSlots(context.work.slots);
      enqueue.assign({ halted: true });
    }),
  },
  guards: {
    finished: ({ context }) => {
      const { store, slots } = context.work;
      if (store.live === 0 || context.halted || (context.draining && slots.running === 0)) return true;
      // Every live agent waits on a join: their workers are paused, so nothing can happen until a resume.
      if (store.live === store.joining) return true;
      // --on-ask=pause: every live agent waits for an answer (or on a join), so nothing can happen until one comes.
      return context.stopWhenAsking && store.live === store.asking + store.joining;
    },
    flushed: ({ context }) => context.persisted >= context.version,
    reusesId: ({ context, event }) => event.type === 'step.done' && event.spawns.length > 0 && reusedId(context.work.store, event.spawns.map((s) => s.id)) !== undefined,
    pauses: ({ event }) => event.type === 'step.failed' && event.failure.pauses,
    isWorker: ({ context, event }) => event.type === 'step.failed' && !event.failure.halts && context.work.store.agents.get(event.agentId)?.parent !== undefined,
    expiryFails: ({ context, event }) => {
      if (event.type !== 'ask.expire') return false;
      const record = context.work.store.agents.get(event.agentId);
      return record?.status === 'active' && record.parent === undefined && record.ask?.id === event.askId && record.ask.timeout_next === undefined;
    },
  },
}).createMachine({
  id: 'supervisor',
  context: ({ input }) => ({
    work: {
      store: input.store,
      slots: createSlots(input.maxParallel, input.maxMarkdown),
      actors: new Map(),
      toSpawn: [...input.store.agents.values()].filter((a) => a.status === 'active'),
      asks: createFrameWaiters(),
      joins: createFrameWaiters(),
    },
    version: 0,
    persisted: 0,
    halted: false,
    draining: false,
    stopWhenAsking: input.stopWhenAsking ?? false,
    dueAsks: input.dueAsks ?? [],
  }),
  invoke: { id: 'persister', src: 'persister', input: ({ context }) => ({ store: context.work.store }) },
  on: {
    // Handled at the top level so a step that completed while the run was halting is still recorded.
    'step.done': [
      { guard: 'reusesId', actions: ['refuseStep', 'halt', 'changed'] },
      { actions: ['recordStep', 'resolveJoins', 'spawnAgents', 'queueContinuing', 'changed', 'dispatch'] },
    ],
    'state.persisted': { actions: [assign({ persisted: ({ context, event }) => Math.max(context.persisted, event.version) }), 'dispatch'] },
    'state.write_failed': {
      target: '.done',
      actions: [{ type: 'failRun', params: ({ event }) => ({ error: errorText(event.error) }) }, 'halt'],
    },
  },
  initial: 'running',
  states: {
    running: {
      entry: ['expireDue', 'resolveJoins', 'spawnAgents', 'changed'],
      always: { guard: 'finished', target: 'finishing' },
      on: {
        'agent.ready': { actions: ['queue', 'dispatch'] },
        'step.failed': [
          {
            description: 'Claude Code kept failing or hit a usage limit: pause this agent, let the others go on.',
            guard: 'pauses',
            actions: ['pauseAgent', 'changed', 'dispatch'],
          },
          {
            description: 'A forked worker failed: it ends, and its parent\'s join (if any) gets the failure; the others go on.',
            guard: 'isWorker',
            actions: ['failWorker', 'resolveJoins', 'changed', 'dispatch'],
          },
          { actions: ['failAgent', 'halt'] },
        ],
        'xstate.error.actor.*': {
          actions: [{ type: 'failRun', params: ({ event }) => ({ error: `internal error: ${errorText(event.error)}` }) }, 'halt'],
        },
        'run.interrupt': { actions: 'halt' },
        'agent.asking': { actions: 'registerAsker' },
        'agent.joining': { actions: 'registerJoiner' },
        'run.answer': { actions: ['applyAnswer', 'changed', 'dispatch'] },
        'ask.expire': [
          { description: 'An ask without timeout_next ran out of time: its agent fails, and the run with it.', guard: 'expiryFails', actions: ['expire', 'halt', 'changed'] },
          { actions: ['expire', 'resolveJoins', 'changed', 'dispatch'] },
        ],
        'run.drain': { description: 'First Ctrl-C: start nothing new, let running steps finish.', actions: [assign({ draining: true }), 'changed'] },
      },
    },
    finishing: {
      description: 'No step runs any more: record the final status and wait until it is on disk.',
      entry: [({ context }) => settleStatus(context.work.store), 'halt', { type: 'changed', params: { compact: true } }],
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
