import { widthText } from '../../machines/width-text.js';
import type { CostRow } from '../../machines/cost-table.js';
import type { LiveSnapshot } from '../web/live-snapshot.js';
import type { ServedRun } from './served-run.js';

/** A run's status as the live page shows it: `asking` is still running there (its asks panel shows the questions). */
function pageStatus(status: string): LiveSnapshot['run']['status'] {
  return status === 'asking' ? 'running' : (status as LiveSnapshot['run']['status']);
}

/**
 * The `live` field of `GET /runs/{id}/snapshot`: the run as the live page
 * (src/web) reads it, built from what the server already follows of the
 * run, so a run resumed from its state file shows its agents at once.
 * `seq` is the stream's last event id: the page then follows `output`
 * from there. `byState` is the cost by state `GET /runs/{id}` gives.
 */
export function liveSnapshotOf(
  run: ServedRun,
  byState: CostRow[] = run.byState.rows(run.costUsd),
): LiveSnapshot {
  return {
    seq: run.events.lastId,
    run: {
      id: run.id,
      name: run.workflowId,
      status: pageStatus(run.status),
      costUsd: run.costUsd,
      budgetUsd: run.budgetUsd,
      startedAt: run.startedAt,
      ...(run.endedAt !== undefined ? { elapsedMs: run.endedAt - run.startedAt } : {}),
      steps: run.steps,
      denials: run.denials,
      ...(run.widths.size > 0
        ? { widths: Object.fromEntries([...run.widths].map(([b, w]) => [b, widthText(w)])) }
        : {}),
      ...(run.error !== undefined ? { error: run.error } : {}),
      ...(run.result !== undefined ? { result: run.result } : {}),
    },
    agents: [...run.agents.values()].map((a) => ({
      id: a.id,
      machine: a.machine === 'failed' ? 'terminated' : a.machine,
      state: a.state,
      depth: a.depth,
      costUsd: a.costUsd,
      ...(a.machine === 'failed' ? { failed: true } : {}),
    })),
    asks: [...run.asks.values()],
    byState,
    recent: [...run.recent],
  };
}
