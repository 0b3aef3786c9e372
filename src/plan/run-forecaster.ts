import type { Forecaster } from '../history/history-types.js';
import { historyKey } from '../history/history-paths.js';
import { readWorkflowHistory } from '../history/history-store.js';
import type { ForecastRun } from '../runtime/run-types.js';
import { createForecaster } from './forecaster.js';
import { loadPlanGraph } from './load-plan.js';

/**
 * The forecaster of a run with the cost gate on (`--confirm-over`): its
 * workflow's graph (and its callees'), the project's history of that
 * workflow, and the run's model and input, as `raymond plan` weighs them.
 * Handed to a run by its front end (`raymond run`, `raymond serve`); made
 * only when the gate is on.
 */
export async function runForecaster(run: ForecastRun): Promise<Forecaster> {
  const graph = await loadPlanGraph(run.scope, run.scope.ref.path);
  const history = await readWorkflowHistory(run.projectRoot, historyKey(run.scope.ref));
  return createForecaster({
    graph,
    ...(history ? { history } : {}),
    ...(run.model ? { model: run.model } : {}),
    ...(run.input !== undefined ? { input: run.input } : {}),
  });
}
