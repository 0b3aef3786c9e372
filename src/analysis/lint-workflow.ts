import { stateChecks } from './lint-checks.js';
import { reachabilityChecks } from './lint-reachability.js';
import { CHECKS, type CheckId, type Problem, type Severity } from './lint-checks-table.js';
import type { WorkflowGraph } from './workflow-graph.js';

/** One line of `raymond lint`. */
export interface Finding {
  check: CheckId;
  severity: Severity;
  /** The state file as the user finds it (the workflow's path for workflow-wide findings). */
  file: string;
  message: string;
}

/** Runs every check on a workflow read by `loadWorkflowGraph`; findings come workflow-wide first, then by file. */
export function lintWorkflow(graph: WorkflowGraph): Finding[] {
  const problems: Problem[] = [];
  if (graph.entryProblem) {
    const check =
      graph.entryProblem.code === 'ERR_ENTRY_AMBIGUOUS' ? 'ambiguous-entry' : 'no-entry';
    problems.push({ check, file: undefined, message: graph.entryProblem.message });
  }
  for (const node of graph.nodes) problems.push(...stateChecks(node));
  problems.push(...reachabilityChecks(graph));
  const order = new Map(graph.nodes.map((n, i) => [n.file, i]));
  const rank = (p: Problem) => (p.file === undefined ? -1 : order.get(p.file)!);
  return problems
    .map((p, i) => ({ p, i }))
    .sort((a, b) => rank(a.p) - rank(b.p) || a.i - b.i)
    .map(({ p }) => ({
      check: p.check,
      severity: CHECKS[p.check],
      file: p.file === undefined ? graph.path : graph.display(p.file),
      message: p.message,
    }));
}
