import { putAgent, type RunStore } from './run-store.js';
import type { AgentRecord, JoinEntry } from './types.js';
import { workerNumber } from './worker-names.js';

/** Fork order: a parent numbers its workers as it forks them (machines/worker-names.ts). */
function forkOrder(ids: readonly string[]): string[] {
  return ids
    .map((id) => ({ id, n: workerNumber(id)?.n ?? 0 }))
    .sort((a, b) => a.n - b.n)
    .map((w) => w.id);
}

/** One worker as its parent's join receives it. */
function entryOf(store: RunStore, id: string): JoinEntry {
  const w = store.agents.get(id);
  if (!w)
    return {
      agent: id,
      attributes: {},
      status: 'failed',
      error: 'the worker is missing from the run',
      cost_usd: 0,
    };
  const completed = w.status === 'terminated';
  // Keys in the documented order: agent, attributes, status, result or error, cost_usd, branch, commits.
  const entry: JoinEntry = completed
    ? {
        agent: id,
        attributes: w.attributes,
        status: 'completed',
        result: store.meta.results[id] ?? w.result ?? '',
        cost_usd: w.cost_usd ?? 0,
      }
    : {
        agent: id,
        attributes: w.attributes,
        status: 'failed',
        error: w.error ?? 'failed',
        cost_usd: w.cost_usd ?? 0,
      };
  if (w.worktree) {
    entry.branch = w.worktree.branch;
    entry.commits = w.worktree.commits ?? 0;
  }
  return entry;
}

/** A join that went through: the agent's record after, and how many workers its input holds. */
export interface ResolvedJoin {
  record: AgentRecord;
  workers: number;
}

/**
 * Resolves the join of an agent whose unjoined workers have all ended: its
 * next state gets their entries, in fork order, as its input (a JSON
 * array), and each worker is marked joined, so a failure it carried counts
 * as handled. Undefined when the agent does not wait on a join with every
 * worker ended.
 */
export function resolveJoin(store: RunStore, agentId: string): ResolvedJoin | undefined {
  const parent = store.agents.get(agentId);
  if (!parent?.joining || parent.status !== 'active' || (store.unended.get(agentId) ?? 0) > 0)
    return undefined;
  const ids = forkOrder(store.unjoined.get(agentId) ?? []);
  store.unjoined.delete(agentId);
  const entries = ids.map((id) => entryOf(store, id));
  for (const id of ids) {
    const w = store.agents.get(id);
    if (w && w.joined === undefined) putAgent(store, { ...w, joined: true });
  }
  const { joining: _j, ...rest } = parent;
  const resolved: AgentRecord = { ...rest, input: JSON.stringify(entries) };
  putAgent(store, resolved);
  return { record: resolved, workers: ids.length };
}

/** Resolves every join whose workers have all ended, in the order they became ready. */
export function resolveReadyJoins(store: RunStore): ResolvedJoin[] {
  if (store.joinReady.size === 0) return [];
  const ready = [...store.joinReady];
  store.joinReady.clear();
  const out: ResolvedJoin[] = [];
  for (const id of ready) {
    const resolved = resolveJoin(store, id);
    if (resolved) out.push(resolved);
  }
  return out;
}
