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
import { projectRootOf } from '../task-folder-pattern.js';

/**
 * The run's history writer, after rebuilding the project's history from its
 * state files when it has none (it was deleted, or kept by an older Raymond).
 */
export async function openHistory(
  state: WorkflowState,
  stateFile: string,
  source: RunSource,
  warn: (text: string) => void,
): Promise<HistoryWriter> {
  const project = projectRootOf(stateFile);
  const root = historyRoot(project);
  if (!existsSync(root)) await rebuildHistory(project);
  const agents = state.agents.filter((a) => a.status !== 'terminated' && a.status !== 'failed');
  return new HistoryWriter(
    {
      root,
      key: historyKey(state.scope),
      run: state.workflow_id,
      workflow: workflowShortName(state.scope.path),
      path: state.scope.path,
      fingerprint: workflowFingerprint(state.scope.fingerprints),
      source,
      startedAt: Date.parse(state.started_at),
      live: agents.length,
      agents: state.agents.length,
    },
    warn,
  );
}
