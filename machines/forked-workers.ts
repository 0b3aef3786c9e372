import type { SpawnRequest } from './apply-decision.js';
import { workerRecord } from './apply-decision.js';
import { advanceForkCounter, putAgent, type RunStore } from './run-store.js';
import type { Enqueue } from './run-work.js';
import type { AgentRecord } from './types.js';

// Where a fork's workers join the run: after a step's `<fork>`, or when the cost gate's answer lets a kept fork go on.

/** Puts the workers a step (or a gate's answer) forked, queues them for actors, and says so; returns their records. */
export function addWorkers(
  store: RunStore,
  toSpawn: AgentRecord[],
  parentId: string,
  spawns: readonly SpawnRequest[],
  emit: Enqueue['emit'],
): AgentRecord[] {
  const parent = store.agents.get(parentId);
  const perAgent = store.meta.options.budget_per_agent_usd;
  const workers = spawns.map((spawn) => {
    const w = workerRecord(spawn);
    // A worker spends against its parent's branches, and against its own if it has a budget.
    const own = spawn.budget ?? perAgent;
    const budgets = [...(parent?.budgets ?? []), ...(own ? [{ branch: w.id, usd: own }] : [])];
    if (budgets.length > 0) w.budgets = budgets;
    return w;
  });
  advanceForkCounter(store, parentId, workers.length);
  for (const w of workers) {
    putAgent(store, w);
    toSpawn.push(w);
  }
  if (workers.length > 0) emit({ type: 'workers.forked', parentId, workers });
  return workers;
}
