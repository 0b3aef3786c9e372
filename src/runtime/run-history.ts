import { existsSync } from 'node:fs';
import type { WorkflowState } from '../../machines/types.js';
import {
  historyKey,
  historyRoot,
  workflowFingerprint,
  workflowShortName,
} from '../history/history-paths.js';
import { rebuildHistory } from '../history/history-rebuild.js';
import type { RunSource } from '../history/history-types.js';
import { HistoryWriter } from '../history/history-writer.js';
import { runSoFar } from '../history/run-so-far.js';
import { readRunHistory } from '../history/run-steps.js';
import { projectRootOf } from '../task-folder-pattern.js';

/**
 * The run's history writer, after rebuilding the project's history from its
 * state files when it has none (it was deleted, or kept by an older Raymond).
 */
export async function openHistory(
  state: WorkflowState,
  stateFile: string,
  source: RunSource,
  resumed: boolean,
  warn: (text: string) => void,
): Promise<HistoryWriter> {
  const project = projectRootOf(stateFile);
  const root = historyRoot(project);
  if (!existsSync(root)) await rebuildHistory(project);
  const agents = state.agents.filter((a) => a.status !== 'terminated' && a.status !== 'failed');
  const key = historyKey(state.scope);
  // A resume reads what its earlier sessions recorded, so the run record it writes covers them all.
  const earlier = resumed ? await readRunHistory(project, state.workflow_id, key) : undefined;
  const workerIds = new Set(state.agents.filter((a) => a.parent !== undefined).map((a) => a.id));
  return new HistoryWriter(
    {
      root,
      key,
      run: state.workflow_id,
      workflow: workflowShortName(state.scope.path),
      path: state.scope.path,
      fingerprint: workflowFingerprint(state.scope.fingerprints),
      source,
      startedAt: Date.parse(state.started_at),
      live: agents.length,
      agents: state.agents.length,
      ...(earlier ? { before: runSoFar(earlier.steps, earlier.record, workerIds) } : {}),
    },
    warn,
  );
}
