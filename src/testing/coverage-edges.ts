import type { WorkflowGraph } from '../analysis/workflow-graph.js';
import type { StateRef } from '../analysis/workflow-node.js';

/**
 * The transition edges of a workflow's graph, as coverage counts them: one
 * per tag and target (`goto`, `reset`, `call`, `function`, `fork`, `join`,
 * `ask`, the cross-workflow tags), plus the routes a tag's attributes open
 * (`return` of a call, `next` of a fork, `timeout` of an ask) and `result`.
 * Kept apart from coverage.ts, which walks a run's events over them.
 */

/** One edge: from a state file, by a kind, to a state file, a workflow as written, or nothing (`result`). */
export interface CoverageEdge {
  from: string;
  kind: string;
  /** A state file; a workflow specifier for cross-workflow tags; a name built at run time; null for `result`. */
  to: string | null;
}

/** An edge of the graph; `dynamic` ones lead where only the run knows (`{{next}}`), and stand for any target. */
export interface GraphEdge extends CoverageEdge {
  dynamic: boolean;
}

/** The identity of an edge, for sets and maps. */
export function edgeKey(e: CoverageEdge): string {
  return `${e.from}\u0000${e.kind}\u0000${e.to ?? ''}`;
}

/** Edges in a stable order: by source state, kind, then target. */
export function sortEdges<E extends CoverageEdge>(edges: Iterable<E>): E[] {
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...edges].sort(
    (a, b) => cmp(a.from, b.from) || cmp(a.kind, b.kind) || cmp(a.to ?? '', b.to ?? ''),
  );
}

/**
 * Every edge of a graph, deduplicated and sorted. A target that names no
 * state (lint's unknown-target) is left out: no run can take it.
 */
export function graphEdges(graph: WorkflowGraph): GraphEdge[] {
  const edges = new Map<string, GraphEdge>();
  const add = (from: string, kind: string, to: string | null, dynamic = false) => {
    const edge = { from, kind, to, dynamic };
    edges.set(edgeKey(edge), edge);
  };
  const toRef = (from: string, kind: string, ref: StateRef) => {
    if (ref.files.length > 0) for (const f of ref.files) add(from, kind, f);
    else if (ref.dynamic && ref.written !== '') add(from, kind, ref.written, true);
  };
  for (const node of graph.nodes) {
    for (const t of node.transitions) {
      if (t.workflow) add(node.file, t.tag, t.workflow.written, t.workflow.dynamic);
      else toRef(node.file, t.tag, t.target);
      if (t.returnTo) toRef(node.file, 'return', t.returnTo);
      if (t.next) toRef(node.file, 'next', t.next);
      if (t.timeoutNext) toRef(node.file, 'timeout', t.timeoutNext);
    }
    if (node.result) add(node.file, 'result', null);
  }
  return sortEdges(edges.values());
}
