import type { WorkflowGraph } from '../analysis/workflow-graph.js';
import type { StateRef, WorkflowNode } from '../analysis/workflow-node.js';

/**
 * A workflow and the workflows its cross-workflow tags lead into, as one
 * graph of states keyed as the run history keys them: a state of the run's
 * own workflow by its file (`REVIEW.md`), a callee's as `<scope>:<file>`.
 */

/** One state of the plan's graph. */
export interface PlanState {
  /** The state's key in the history. */
  key: string;
  file: string;
  /** How the plan shows it: its file, or `<callee's name>:<file>`. */
  label: string;
  /** The key of the callee workflow it is in (its root path, as a run's agents carry it); absent: the run's own workflow. */
  scope?: string;
  node: WorkflowNode;
}

/** A way from one state to another; `fork`: the target starts a new worker there. */
export interface PlanEdge {
  to: string;
  fork: boolean;
}

/** The states and edges `raymond plan` and the forecaster walk. */
export interface PlanGraph {
  name: string;
  path: string;
  /** The entry state's key; undefined when the workflow has no single entry. */
  entry: string | undefined;
  states: Map<string, PlanState>;
  edges: Map<string, PlanEdge[]>;
}

/** One workflow's graph in the plan: the run's own (no scope), or a callee's (its scope key). */
export interface ScopedGraph {
  scope?: string;
  graph: WorkflowGraph;
}

/** The key the history gives a state of `scope`. */
export function stateKey(scope: string | undefined, file: string): string {
  return scope === undefined ? file : `${scope}:${file}`;
}

/** The key of a cross-workflow tag written in a state, for the links the loader resolved. */
export function linkKey(from: string, written: string): string {
  return `${from}\u0000${written}`;
}

/**
 * Builds the plan's graph from the run's workflow (first) and its callees.
 * `links` maps each cross-workflow tag (`linkKey`) to the key of the state
 * it enters; a tag not there (dynamic, remote or broken) leads nowhere
 * known. A target built at run time (`{{next}}`) may lead to any state of
 * its workflow, so it gets an edge to each.
 */
export function buildPlanGraph(
  graphs: ScopedGraph[],
  links: ReadonlyMap<string, string> = new Map(),
): PlanGraph {
  const [main] = graphs;
  if (!main) throw new Error('buildPlanGraph needs the run workflow');
  const states = new Map<string, PlanState>();
  for (const { scope, graph } of graphs)
    for (const node of graph.nodes) {
      const key = stateKey(scope, node.file);
      const label = scope === undefined ? node.file : `${graph.name}:${node.file}`;
      states.set(key, {
        key,
        file: node.file,
        label,
        ...(scope !== undefined ? { scope } : {}),
        node,
      });
    }
  const edges = new Map<string, PlanEdge[]>();
  for (const { scope, graph } of graphs)
    for (const node of graph.nodes) {
      const from = stateKey(scope, node.file);
      edges.set(from, edgesOf(node, from, graph, scope, links));
    }
  const entry = main.graph.entries.length === 1 ? main.graph.entries[0] : undefined;
  return { name: main.graph.name, path: main.graph.path, entry, states, edges };
}

function edgesOf(
  node: WorkflowNode,
  from: string,
  graph: WorkflowGraph,
  scope: string | undefined,
  links: ReadonlyMap<string, string>,
): PlanEdge[] {
  const out = new Map<string, PlanEdge>();
  const add = (to: string, fork: boolean) => {
    const seen = out.get(to);
    if (!seen || (fork && !seen.fork)) out.set(to, { to, fork: fork || (seen?.fork ?? false) });
  };
  const toRef = (ref: StateRef | undefined, fork = false) => {
    if (!ref) return;
    for (const f of ref.files) add(stateKey(scope, f), fork);
    if (ref.dynamic && ref.files.length === 0)
      for (const n of graph.nodes) add(stateKey(scope, n.file), fork);
  };
  for (const t of node.transitions) {
    if (t.workflow) {
      const to = links.get(linkKey(from, t.workflow.written));
      if (to !== undefined) add(to, t.tag === 'fork-workflow');
    } else toRef(t.target, t.tag === 'fork');
    toRef(t.returnTo);
    toRef(t.next);
    toRef(t.timeoutNext);
  }
  return [...out.values()];
}
