import { stackFromArray, stackToArray } from './frame-stack.js';
import type { AgentRecord, StoredAgent, WorkflowState } from './types.js';
import { forkCounterFloors } from './worker-names.js';

/**
 * The supervisor's working copy of the run. It is mutated in place by the
 * supervisor's actions only: copying a map of thousands of agents on every
 * step would make the orchestrator's cost grow with the fan-out.
 */
export interface RunStore {
  meta: Omit<WorkflowState, 'agents'>;
  agents: Map<string, AgentRecord>;
  /** Agents whose status is `active`. */
  live: number;
  /** Of those, the agents waiting for an answer to an `<ask>`. */
  asking: number;
  /** What changed since the persister last took the changes, so it can journal just that. */
  dirty: Dirty;
}

/** Keys changed since the last write. */
export interface Dirty {
  agents: Set<string>;
  results: Set<string>;
  forkCounters: Set<string>;
  sessionCosts: Set<string>;
}

export function cleanDirty(): Dirty {
  return { agents: new Set(), results: new Set(), forkCounters: new Set(), sessionCosts: new Set() };
}

/** Hands the changes so far to a writer and starts a new set. */
export function takeDirty(store: RunStore): Dirty {
  const d = store.dirty;
  store.dirty = cleanDirty();
  return d;
}

/**
 * Builds a store from a state snapshot (a fresh run or a resumed one). Fork
 * counters are raised above every number the run's ids already end with, so
 * new workers never take an id the run holds (machines/worker-names.ts).
 */
export function storeFromState(state: WorkflowState): RunStore {
  const { agents, journal_seq: _seq, ...meta } = state;
  const map = new Map(agents.map((a) => [a.id, agentFromStored(a)]));
  const store: RunStore = {
    meta: { ...meta, results: { ...meta.results }, fork_counters: { ...meta.fork_counters }, session_costs: { ...meta.session_costs } },
    agents: map,
    live: agents.filter((a) => a.status === 'active').length,
    asking: agents.filter((a) => a.status === 'active' && a.ask !== undefined).length,
    dirty: cleanDirty(),
  };
  for (const [parentId, floor] of forkCounterFloors([...map.keys(), ...Object.keys(meta.results)])) {
    if ((store.meta.fork_counters[parentId] ?? 0) >= floor) continue;
    store.meta.fork_counters[parentId] = floor;
    store.dirty.forkCounters.add(parentId);
  }
  return store;
}

/** The JSON document the state file holds. */
export function stateFromStore(store: RunStore): WorkflowState {
  return { ...store.meta, agents: [...store.agents.values()].map(storedAgent) };
}

/** An agent as the state file holds it. */
export function storedAgent(record: AgentRecord): StoredAgent {
  return { ...record, stack: stackToArray(record.stack) };
}

/** An agent of the state file, as memory holds it. */
export function agentFromStored(agent: StoredAgent): AgentRecord {
  return { ...agent, stack: stackFromArray(agent.stack) };
}

/** Replaces an agent's record, keeping the live count right. */
export function putAgent(store: RunStore, record: AgentRecord): void {
  const before = store.agents.get(record.id);
  if (before?.status === 'active') {
    store.live--;
    if (before.ask) store.asking--;
  }
  if (record.status === 'active') {
    store.live++;
    if (record.ask) store.asking++;
  }
  store.agents.set(record.id, record);
  store.dirty.agents.add(record.id);
}

/** Records a terminated agent's result. */
export function putResult(store: RunStore, agentId: string, payload: string): void {
  store.meta.results[agentId] = payload;
  store.dirty.results.add(agentId);
}

/**
 * The first of a fork's worker ids that the run already holds, or that the
 * fork names twice: such a worker would overwrite an agent's record.
 */
export function reusedId(store: RunStore, ids: readonly string[]): string | undefined {
  const seen = new Set<string>();
  for (const id of ids) {
    if (store.agents.has(id) || seen.has(id)) return id;
    seen.add(id);
  }
  return undefined;
}

/** Counts `n` more workers forked by a parent (their ids were made from the count before). */
export function advanceForkCounter(store: RunStore, parentId: string, n: number): void {
  if (n === 0) return;
  store.meta.fork_counters[parentId] = (store.meta.fork_counters[parentId] ?? 0) + n;
  store.dirty.forkCounters.add(parentId);
}

/** Remembers the last total cost of Claude Code sessions. */
export function putSessionCosts(store: RunStore, costs: Record<string, number> | undefined): void {
  for (const [session, total] of Object.entries(costs ?? {})) {
    store.meta.session_costs[session] = total;
    store.dirty.sessionCosts.add(session);
  }
}

/** Sets the run's status and the error that explains it. */
export function setRunStatus(store: RunStore, status: WorkflowState['status'], error?: string): void {
  store.meta.status = status;
  if (error !== undefined) store.meta.error = error;
}

/**
 * The status of a run in which no step runs any more: completed, paused
 * when agents wait on a pause, or asking when every live agent waits for
 * an answer. A failed, budget-spent or interrupted run keeps the status it has.
 */
export function settleStatus(store: RunStore): void {
  if (store.meta.status !== 'running') return;
  // Every live agent waits for an answer: the run stops to ask (exit 2).
  if (store.live > 0 && store.live === store.asking) return setRunStatus(store, 'asking');
  if (store.live > 0) return;
  const paused = [...store.agents.values()].filter((a) => a.status === 'paused');
  if (paused.length === 0) return setRunStatus(store, 'completed');
  setRunStatus(store, 'paused', `${paused.length} agent(s) paused: ${paused.map((a) => `${a.id}: ${a.error}`).join('; ')}`);
}
