import { stateChecks } from './lint-checks.js';
import { reachabilityChecks } from './lint-reachability.js';
import type { WorkflowGraph } from './workflow-graph.js';

export type Severity = 'error' | 'warning';

/**
 * Every check `raymond lint` runs, with its severity. Ids are permanent:
 * scripts filter on them. An error is something a run would refuse or fail
 * on; a warning is something a run gets through but is probably a mistake.
 */
export const CHECKS = {
  'no-entry': 'error',
  'ambiguous-entry': 'error',
  'bad-frontmatter': 'error',
  'unknown-frontmatter-key': 'warning',
  'invalid-model': 'error',
  'invalid-effort': 'error',
  'malformed-tag': 'error',
  'unknown-target': 'error',
  'ambiguous-target': 'error',
  'missing-return-state': 'error',
  'call-without-return': 'error',
  'fork-without-next': 'error',
  'tag-not-allowed': 'warning',
  'unused-allowed-transition': 'warning',
  'unreachable-state': 'warning',
  'no-way-out': 'error',
  'callee-without-result': 'error',
} as const satisfies Record<string, Severity>;

export type CheckId = keyof typeof CHECKS;

/** What a check reports, before the severity and the user's path are added. */
export interface Problem {
  check: CheckId;
  /** The state file, or undefined for the workflow as a whole. */
  file: string | undefined;
  message: string;
}

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
    const check = graph.entryProblem.code === 'ERR_ENTRY_AMBIGUOUS' ? 'ambiguous-entry' : 'no-entry';
    problems.push({ check, file: undefined, message: graph.entryProblem.message });
  }
  for (const node of graph.nodes) problems.push(...stateChecks(node));
  problems.push(...reachabilityChecks(graph));
  const order = new Map(graph.nodes.map((n, i) => [n.file, i]));
  const rank = (p: Problem) => (p.file === undefined ? -1 : order.get(p.file)!);
  return problems
    .map((p, i) => ({ p, i }))
    .sort((a, b) => rank(a.p) - rank(b.p) || a.i - b.i)
    .map(({ p }) => ({ check: p.check, severity: CHECKS[p.check], file: p.file === undefined ? graph.path : graph.display(p.file), message: p.message }));
}
