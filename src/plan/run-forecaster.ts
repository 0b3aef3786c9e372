import { errorMessage } from '../errors.js';
import type { Forecaster, WorkflowHistory } from '../history/history-types.js';
import { historyKey } from '../history/history-paths.js';
import { readWorkflowHistory, skippedWarning } from '../history/history-store.js';
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
  let history: WorkflowHistory | undefined;
  try {
    history = await readWorkflowHistory(run.projectRoot, historyKey(run.scope.ref));
  } catch (err) {
    // The gate still asks: from the prior, as for a workflow with no history, never not at all.
    run.warn?.(
      `cannot read the history of this workflow (${errorMessage(err)}); it forecasts from the prior`,
    );
  }
  const skipped = history && skippedWarning(run.projectRoot, history);
  if (skipped) run.warn?.(skipped);
  return createForecaster({
    graph,
    ...(history ? { history } : {}),
    ...(run.model ? { model: run.model } : {}),
    ...(run.input !== undefined ? { input: run.input } : {}),
    ...(run.prices ? { prices: run.prices } : {}),
  });
}
