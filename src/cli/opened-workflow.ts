import { statesThatAsk } from '../analysis/ask-scan.js';
import { loadWorkflowGraph, scopeGraph, type WorkflowGraph } from '../analysis/workflow-graph.js';
import { RaymondError } from '../errors.js';
import type { RunSettings } from '../settings/run-settings.js';
import { openScope, resumeSpecifier, type Scope } from '../scope/scope.js';
import { readStateFile, stateFilePath } from '../state/state-file.js';

/**
 * The workflow a run command works on, opened once: a new run's scope is
 * checked for asks, run, and drawn on the live page from this one opening
 * (a remote zip is fetched, hashed and extracted once). A resume's scope is
 * opened by the resume itself, under the run's lock; its drawing reads the
 * workflow the state file names.
 */
export interface OpenedWorkflow {
  /** A new run's scope; undefined for a resume. */
  readonly scope: Scope | undefined;
  /** The workflow's graph, read once when first asked for; undefined when it cannot be read. */
  graph(): Promise<WorkflowGraph | undefined>;
  dispose(): Promise<void>;
}

/** Opens a new run's workflow at `path`, or stands for a resumed run's (`resumed`: its id) without opening it. */
export async function openRunWorkflow(
  path: string | undefined,
  resumed: { stateDir: string; workflowId: string } | undefined,
): Promise<OpenedWorkflow> {
  const scope = resumed === undefined && path !== undefined ? await openScope(path) : undefined;
  let graph: Promise<WorkflowGraph | undefined> | undefined;
  const read = async (): Promise<WorkflowGraph | undefined> => {
    if (scope) return scopeGraph(scope, path!);
    if (!resumed) return undefined;
    const state = await readStateFile(
      stateFilePath(resumed.stateDir, resumed.workflowId),
      resumed.workflowId,
    );
    return loadWorkflowGraph(resumeSpecifier(state.scope));
  };
  return {
    scope,
    graph: () => (graph ??= read().catch(() => undefined)),
    dispose: async () => {
      await scope?.dispose();
    },
  };
}

/**
 * Refuses, before anything runs, a workflow that can ask when no answer can
 * come (`--on-ask=reject`): it would only get as far as its first question.
 */
export async function refuseAsking(
  workflow: OpenedWorkflow,
  path: string,
  settings: RunSettings,
): Promise<void> {
  if (settings.onAsk !== 'reject') return;
  const graph = await workflow.graph();
  const asking = graph ? statesThatAsk(graph) : [];
  if (asking.length === 0) return;
  throw new RaymondError(
    'ERR_ASK_REJECTED',
    `${asking.join(', ')} can ask a question (<ask>), and nobody can answer here (--on-ask=reject, the default without a terminal): run it with --on-ask=pause (it exits 2 when it asks; answer with --resume ID --input TEXT), or at a terminal`,
    { file: path },
  );
}
