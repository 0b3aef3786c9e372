import { lintWorkflow, type Finding } from '../analysis/lint-workflow.js';
import { loadWorkflowGraph } from '../analysis/workflow-graph.js';
import { EXIT } from './exit-codes.js';
import { SEVERITIES, type Severity } from '../analysis/lint-checks-table.js';
import { TEST_SUFFIX } from '../testing/test-file.js';
import { lintTestFile, lintWorkflowTests } from '../testing/lint-tests.js';

/** What `raymond lint --json` prints. */
interface LintReport {
  /** The findings at `--level` or above. */
  findings: Finding[];
  /** Counts of every finding, whatever `--level` shows. */
  errors: number;
  warnings: number;
  infos: number;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The text report: one line per finding, then a summary line. */
function formatLint(report: LintReport, path: string, states: number, level: Severity): string {
  const lines = report.findings.map((f) => `${f.file}: ${f.severity} ${f.check}: ${f.message}`);
  const infos = level === 'info' ? `, ${report.infos} info` : '';
  lines.push(
    `${path}: ${plural(report.errors, 'error')}, ${plural(report.warnings, 'warning')}${infos} in ${plural(states, 'state')}`,
  );
  return lines.join('\n');
}

/**
 * `raymond lint PATH`: checks a workflow without running it and prints the
 * findings, those of the test files in its `tests/` folder included; a
 * test file (`x.test.yaml`) is checked alone, against its workflow.
 * Returns the exit code: failed when any finding is an error.
 * A path that is no workflow throws, like a run would. `win` checks the
 * workflow as Windows would run it (`.bat`/`.ps1` scripts).
 */
export async function lintCommand(
  path: string,
  opts: { json?: boolean; level?: Severity; win?: boolean },
): Promise<number> {
  const open = opts.win ? { platform: 'win32' as const } : {};
  let graph, findings;
  if (path.endsWith(TEST_SUFFIX)) ({ graph, findings } = await lintTestFile(path, open));
  else {
    graph = await loadWorkflowGraph(path, open);
    findings = [...lintWorkflow(graph), ...(await lintWorkflowTests(path, graph, open))];
  }
  const level = opts.level ?? 'warning';
  const shown = SEVERITIES.slice(0, SEVERITIES.indexOf(level) + 1);
  const count = (severity: Severity) => findings.filter((f) => f.severity === severity).length;
  const report: LintReport = {
    findings: findings.filter((f) => shown.includes(f.severity)),
    errors: count('error'),
    warnings: count('warning'),
    infos: count('info'),
  };
  process.stdout.write(
    `${opts.json ? JSON.stringify(report) : formatLint(report, path, graph.nodes.length, level)}\n`,
  );
  return report.errors > 0 ? EXIT.failed : EXIT.completed;
}
