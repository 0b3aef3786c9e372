import type { AgentRecord, WorkflowState } from './types.js';

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
}

/** Builds a store from a state snapshot (a fresh run or a resumed one). */
export function storeFromState(state: WorkflowState): RunStore {
  const { agents, ...meta } = state;
  const map = new Map(agents.map((a) => [a.id, a]));
  return {
    meta: { ...meta, results: { ...meta.results }, fork_counters: { ...meta.fork_counters }, session_costs: { ...meta.session_costs } },
    agents: map,
    live: agents.filter((a) => a.status === 'active').length,
  };
}

/** The JSON document the state file holds. */
export function stateFromStore(store: RunStore): WorkflowState {
  return { ...store.meta, agents: [...store.agents.values()] };
}

/** Replaces an agent's record, keeping the live count right. */
export function putAgent(store: RunStore, record: AgentRecord): void {
  const before = store.agents.get(record.id);
  if (before?.status === 'active') store.live--;
  if (record.status === 'active') store.live++;
  store.agents.set(record.id, record);
}
