import type { PriceOverrides } from '../agents/agent-backend.js';
import { scopeGraph } from '../analysis/workflow-graph.js';
import { historyKey } from '../history/history-paths.js';
import { readWorkflowHistory } from '../history/history-store.js';
import type { WorkflowHistory } from '../history/history-types.js';
import type { Scope } from '../scope/scope.js';
import { ScopeSet } from '../scope/scope-set.js';
import { createForecaster, type PlanForecaster } from './forecaster.js';
import {
  buildPlanGraph,
  linkKey,
  stateKey,
  type PlanGraph,
  type ScopedGraph,
} from './plan-graph.js';
import { planWorkflow, type WorkflowPlan } from './workflow-plan.js';

/**
 * Reads the graph of an opened workflow and of every workflow its
 * cross-workflow tags lead into, as a run would open them. A callee's
 * states are keyed by its scope key (its root path), the key a run's
 * agents and their history records carry. Nothing runs.
 */
export async function loadPlanGraph(scope: Scope, path: string): Promise<PlanGraph> {
  const scopes = new ScopeSet(scope);
  try {
    const main = await scopeGraph(scope, path);
    const graphs: ScopedGraph[] = [{ graph: main }];
    const links = new Map<string, string>();
    const opened = new Set<string>();
    for (let i = 0; i < graphs.length; i++) {
      const { scope: key, graph } = graphs[i]!;
      for (const node of graph.nodes)
        for (const t of node.transitions) {
          if (!t.workflow || t.workflow.dynamic || t.workflow.problem !== undefined) continue;
          const callee = await scopes
            .open(t.workflow.written, key, node.file)
            .catch(() => undefined);
          if (!callee) continue;
          const calleeKey = callee.key ?? undefined;
          links.set(
            linkKey(stateKey(key, node.file), t.workflow.written),
            stateKey(calleeKey, callee.entry),
          );
          if (calleeKey === undefined || opened.has(calleeKey)) continue;
          opened.add(calleeKey);
          graphs.push({
            scope: calleeKey,
            graph: await scopeGraph(scopes.of(calleeKey), calleeKey),
          });
        }
    }
    return buildPlanGraph(graphs, links);
  } finally {
    await scopes.dispose();
  }
}

/** What a plan is made of, and the plan itself. */
export interface LoadedPlan {
  graph: PlanGraph;
  history: WorkflowHistory | undefined;
  forecaster: PlanForecaster;
  plan: WorkflowPlan;
}

/**
 * The plan of an opened workflow, from the history `projectRoot` keeps of
 * it (if any: the history reader may first rebuild it from the project's
 * state files, as `raymond stats` does) and the run's model and input.
 */
export async function planOf(
  scope: Scope,
  path: string,
  projectRoot: string,
  opts: { model?: string; input?: string; prices?: PriceOverrides } = {},
): Promise<LoadedPlan> {
  const graph = await loadPlanGraph(scope, path);
  const history = await readWorkflowHistory(projectRoot, historyKey(scope.ref));
  const forecaster = createForecaster({ graph, ...(history ? { history } : {}), ...opts });
  return { graph, history, forecaster, plan: planWorkflow(graph, forecaster, history, opts) };
}
