import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { CHECKS } from '../analysis/lint-checks-table.js';
import type { Finding } from '../analysis/lint-workflow.js';
import { loadWorkflowGraph, type WorkflowGraph } from '../analysis/workflow-graph.js';
import { RaymondError } from '../errors.js';
import type { OpenOptions } from '../scope/scope.js';
import { TEST_SUFFIX, loadTestFile, type LoadedTest } from './test-file.js';
import { lintTest } from './test-lint.js';

/**
 * How `raymond lint` reaches a workflow's tests: linting a workflow folder
 * lints each `tests/*.test.yaml` in it too, and a test file given alone is
 * linted against the workflow it tests.
 */

/** The test files of a workflow folder: its `tests/*.test.yaml`, sorted; none for a file or archive. */
function workflowTestFiles(path: string): string[] {
  const folder = join(path, 'tests');
  if (!isDirectory(path) || !isDirectory(folder)) return [];
  return readdirSync(folder, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(TEST_SUFFIX))
    .map((e) => join(folder, e.name))
    .sort();
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The findings of every test file in the workflow folder at `path`, whose
 * graph lint already read: a test of another workflow (`workflow:`) is
 * checked against that one. A test file that cannot be read, or whose
 * workflow cannot be opened, is one `bad-test-file` finding, so the other
 * findings still show.
 */
export async function lintWorkflowTests(
  path: string,
  graph: WorkflowGraph,
  opts: OpenOptions,
): Promise<Finding[]> {
  const graphs = new Map<string, WorkflowGraph>([[resolve(path), graph]]);
  const findings: Finding[] = [];
  for (const file of workflowTestFiles(path)) {
    const bad = (message: string) =>
      findings.push({ check: 'bad-test-file', severity: CHECKS['bad-test-file'], file, message });
    let test: LoadedTest;
    try {
      test = loadTestFile(file);
    } catch (err) {
      if (!(err instanceof RaymondError)) throw err;
      bad(err.message);
      continue;
    }
    let tested = graphs.get(test.workflow);
    if (!tested) {
      const where = relative(process.cwd(), test.workflow) || '.';
      try {
        tested = await loadWorkflowGraph(where, opts);
      } catch (err) {
        if (!(err instanceof RaymondError)) throw err;
        bad(`its workflow ${where} cannot be opened: ${err.message}`);
        continue;
      }
      graphs.set(test.workflow, tested);
    }
    findings.push(...lintTest(test, tested));
  }
  return findings;
}

/**
 * `raymond lint x.test.yaml`: the test file's findings against its
 * workflow, and that workflow's graph (for the summary). A file that cannot
 * be used throws, as a workflow lint cannot open does.
 */
export async function lintTestFile(
  file: string,
  opts: OpenOptions,
): Promise<{ findings: Finding[]; graph: WorkflowGraph }> {
  const test = loadTestFile(file);
  const graph = await loadWorkflowGraph(relative(process.cwd(), test.workflow) || '.', opts);
  return { findings: lintTest(test, graph), graph };
}
