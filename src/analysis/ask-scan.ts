import type { WorkflowGraph } from './workflow-graph.js';

/**
 * The states of a workflow that can ask a question: an `<ask>` in their
 * prompt or script, or an `ask` entry in their `allowed_transitions`. Read
 * from its graph, without running anything, as lint reads them.
 */
export function statesThatAsk(graph: WorkflowGraph): string[] {
  return graph.nodes
    .filter(
      (n) =>
        n.textTags.some((t) => t.tag === 'ask') ||
        (n.policy.allowed ?? []).some((e) => e.tag === 'ask'),
    )
    .map((n) => n.file);
}
