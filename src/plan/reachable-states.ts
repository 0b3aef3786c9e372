import type { PlanGraph } from './plan-graph.js';

/**
 * Walks over the plan's graph: which states a run (or a worker) can reach,
 * which of them can run more than once in a loop, and which run once per
 * forked worker. Only the graph is read; what the history saw comes later.
 */

/** Every state reachable from `starts` (themselves included), following every edge; nearest first (breadth first, edges in order). */
export function reachableFrom(graph: PlanGraph, starts: Iterable<string>): string[] {
  const order = [...new Set(starts)].filter((s) => graph.states.has(s));
  const seen = new Set(order);
  for (let i = 0; i < order.length; i++)
    for (const e of graph.edges.get(order[i]!) ?? [])
      if (!seen.has(e.to) && graph.states.has(e.to)) {
        seen.add(e.to);
        order.push(e.to);
      }
  return order;
}

/** The states among `keys` that lie on a cycle of edges among them: a loop can run them any number of times. */
export function statesInLoops(graph: PlanGraph, keys: readonly string[]): Set<string> {
  const within = new Set(keys);
  const looped = new Set<string>();
  for (const key of keys) {
    const next = (graph.edges.get(key) ?? []).map((e) => e.to).filter((k) => within.has(k));
    if (next.includes(key) || reachableFrom(graph, next).includes(key)) looped.add(key);
  }
  return looped;
}

/** The states a `<fork>` or `<fork-workflow>` among `keys` starts workers at. */
export function forkTargets(graph: PlanGraph, keys: readonly string[]): string[] {
  const targets = new Set<string>();
  for (const key of keys) for (const e of graph.edges.get(key) ?? []) if (e.fork) targets.add(e.to);
  return [...targets];
}

/** The states among `keys` that fork workers. */
export function forkingStates(graph: PlanGraph, keys: readonly string[]): string[] {
  return keys.filter((k) => (graph.edges.get(k) ?? []).some((e) => e.fork));
}

/** How the graph alone bounds a state's steps in one run. */
export type StaticVisits = 'once' | 'loop' | 'per-worker';

/**
 * For each state reachable from the entry: `once` (at most one step per
 * run, as far as the graph shows), `loop` (on a cycle), or `per-worker`
 * (a forked worker's state: once per worker, and forks have no static
 * width). Without history, the last two are unbounded.
 */
export function staticVisits(graph: PlanGraph): Map<string, StaticVisits> {
  const reachable = graph.entry === undefined ? [] : reachableFrom(graph, [graph.entry]);
  const loops = statesInLoops(graph, reachable);
  const workers = new Set(reachableFrom(graph, forkTargets(graph, reachable)));
  return new Map(
    reachable.map((k) => [k, loops.has(k) ? 'loop' : workers.has(k) ? 'per-worker' : 'once']),
  );
}
