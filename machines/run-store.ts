import { stackFromArray, stackToArray } from './frame-stack.js';
import type { AccountWidthNow, AgentRecord, StoredAgent, WorkflowState } from './types.js';
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
  /** Of those, the agents waiting for their workers (`<join>`). */
  joining: number;
  /** What changed since the persister last took the changes, so it can journal just that. */
  dirty: Dirty;
  /** For each agent with workers: how many of them it has not joined and that have not ended (machines/joins.ts). */
  unended: Map<string, number>;
  /**
   * For each agent with workers: the ids of those it has not joined yet, as
   * they were added. Derived from the workers' `parent` and `joined`, never
   * stored: a parent that forks one worker per step would otherwise write a
   * growing list at every step.
   */
  unjoined: Map<string, string[]>;
  /** Joining agents whose workers have all ended: their joins are to be resolved. */
  joinReady: Set<string>;
  /** An agent's first, default task folder: a terminated agent's is not written when it is that one. */
  defaultTaskFolder?: (id: string) => string;
}

/** Keys changed since the last write. */
export interface Dirty {
  agents: Set<string>;
  results: Set<string>;
  forkCounters: Set<string>;
  sessionCosts: Set<string>;
  /** The accounts' widths (`meta.account_widths`) changed. */
  widths: boolean;
}

export function cleanDirty(): Dirty {
  return {
    agents: new Set(),
    results: new Set(),
    forkCounters: new Set(),
    sessionCosts: new Set(),
    widths: false,
  };
}

/** Notes an account's width as the run set it now, for the state file (`--status`). */
export function putWidth(store: RunStore, backend: string, now: AccountWidthNow): void {
  store.meta.account_widths = { ...store.meta.account_widths, [backend]: now };
  store.dirty.widths = true;
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
    meta: {
      ...meta,
      results: { ...meta.results },
      fork_counters: { ...meta.fork_counters },
      session_costs: { ...meta.session_costs },
    },
    agents: map,
    live: agents.filter((a) => a.status === 'active').length,
    asking: agents.filter((a) => a.status === 'active' && a.ask !== undefined).length,
    joining: agents.filter((a) => a.status === 'active' && a.joining).length,
    dirty: cleanDirty(),
    unended: new Map(),
    unjoined: new Map(),
    joinReady: new Set(),
  };
  for (const a of map.values()) {
    if (a.parent === undefined || a.joined !== undefined) continue;
    addUnjoined(store, a.parent, a.id);
    if (awaited(a)) bump(store, a.parent, 1);
  }
  for (const a of map.values())
    if (a.joining && a.status === 'active' && !store.unended.get(a.id)) store.joinReady.add(a.id);
  for (const [parentId, floor] of forkCounterFloors([
    ...map.keys(),
    ...Object.keys(meta.results),
  ])) {
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

/** Whether a worker keeps a join of its parent waiting: not joined yet, and not ended (a paused worker may still go on). */
function awaited(a: AgentRecord): boolean {
  return a.joined === undefined && (a.status === 'active' || a.status === 'paused');
}

function addUnjoined(store: RunStore, parentId: string, id: string): void {
  const ids = store.unjoined.get(parentId);
  if (ids) ids.push(id);
  else store.unjoined.set(parentId, [id]);
}

function bump(store: RunStore, parentId: string, by: number): void {
  const n = (store.unended.get(parentId) ?? 0) + by;
  if (n > 0) {
    store.unended.set(parentId, n);
    return;
  }
  store.unended.delete(parentId);
  if (store.agents.get(parentId)?.joining) store.joinReady.add(parentId);
}

/** Replaces an agent's record, keeping the live count and its parent's count of unended workers right. */
export function putAgent(store: RunStore, record: AgentRecord): void {
  const before = store.agents.get(record.id);
  if (record.parent !== undefined) {
    if (before === undefined && record.joined === undefined)
      addUnjoined(store, record.parent, record.id);
    const delta = Number(awaited(record)) - Number(before !== undefined && awaited(before));
    if (delta !== 0) bump(store, record.parent, delta);
  }
  if (record.joining && record.status === 'active' && !store.unended.get(record.id))
    store.joinReady.add(record.id);
  if (before?.status === 'active') {
    store.live--;
    if (before.ask) store.asking--;
    if (before.joining) store.joining--;
  }
  if (record.status === 'active') {
    store.live++;
    if (record.ask) store.asking++;
    if (record.joining) store.joining++;
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
export function setRunStatus(
  store: RunStore,
  status: WorkflowState['status'],
  error?: string,
): void {
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
  // Every live agent waits, for an answer or on a join: nothing can go on without an answer (exit 2), or without resuming paused workers.
  const waiting = store.live > 0 && store.live === store.asking + store.joining;
  if (waiting && store.asking > 0) return setRunStatus(store, 'asking');
  if (store.live > 0 && !waiting) return;
  // A worker's failure that no <join> received is the run's failure; one a join received was handled there.
  const failed = [...store.agents.values()].filter(
    (a) => a.status === 'failed' && a.joined === undefined,
  );
  if (failed.length > 0)
    return setRunStatus(
      store,
      'failed',
      `${failed.length} worker(s) failed and no <join> received the failure: ${failed.map((a) => `${a.id}: ${a.error}`).join('; ')}`,
    );
  const paused = [...store.agents.values()].filter((a) => a.status === 'paused');
  if (paused.length === 0) return setRunStatus(store, 'completed');
  setRunStatus(
    store,
    'paused',
    `${paused.length} agent(s) paused: ${paused.map((a) => `${a.id}: ${a.error}`).join('; ')}`,
  );
}
