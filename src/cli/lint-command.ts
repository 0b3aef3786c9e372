import { lintWorkflow, type Finding } from '../analysis/lint-workflow.js';
import { loadWorkflowGraph } from '../analysis/workflow-graph.js';
import { EXIT } from './exit-codes.js';

/** What `raymond lint --json` prints. */
interface LintReport {
  findings: Finding[];
  errors: number;
  warnings: number;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The text report: one line per finding, then a summary line. */
function formatLint(report: LintReport, path: string, states: number): string {
  const lines = report.findings.map((f) => `${f.file}: ${f.severity} ${f.check}: ${f.message}`);
  lines.push(`${path}: ${plural(report.errors, 'error')}, ${plural(report.warnings, 'warning')} in ${plural(states, 'state')}`);
  return lines.join('\n');
}

/**
 * `raymond lint PATH`: checks a workflow without running it and prints the
 * findings. Returns the exit code: failed when any finding is an error.
 * A path that is no workflow throws, like a run would.
 */
export async function lintCommand(path: string, opts: { json?: boolean }): Promise<number> {
  const graph = await loadWorkflowGraph(path);
  const findings = lintWorkflow(graph);
  const report: LintReport = {
    findings,
    errors: findings.filter((f) => f.severity === 'error').length,
    warnings: findings.filter((f) => f.severity === 'warning').length,
  };
  process.stdout.write(`${opts.json ? JSON.stringify(report) : formatLint(report, path, graph.nodes.length)}\n`);
  return report.errors > 0 ? EXIT.failed : EXIT.completed;
}
