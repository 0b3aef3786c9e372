import { relative } from 'node:path';
import { loadWorkflowGraph, type WorkflowGraph } from '../analysis/workflow-graph.js';
import { backendOf } from '../agents/registry/registry.js';
import { machineSettings } from '../settings/setting-values.js';
import { isMarkdown } from '../scope/extensions.js';
import { openScope } from '../scope/scope.js';
import { coverage, type Coverage } from './coverage.js';
import type { Divergence } from './test-checks.js';
import type { LoadedTest } from './test-file.js';
import { lintTest } from './test-lint.js';
import type { TestResult } from './test-runner.js';

/**
 * What a suite needs of the workflows its tests test: each one's graph,
 * read once, to lint the tests before they run and to measure coverage
 * after.
 */

/** The graph of every workflow the tests test, by its absolute path. */
export async function workflowGraphs(
  tests: readonly LoadedTest[],
): Promise<Map<string, WorkflowGraph>> {
  const graphs = new Map<string, WorkflowGraph>();
  for (const t of tests) {
    if (!graphs.has(t.workflow))
      graphs.set(t.workflow, await loadWorkflowGraph(relative(process.cwd(), t.workflow) || '.'));
  }
  return graphs;
}

/**
 * A test whose file lint finds an error in (a reply to a state that does
 * not exist, an agent no run can have) fails without running: its run
 * could only mislead.
 */
export function lintDivergence(test: LoadedTest, graph: WorkflowGraph): Divergence | undefined {
  const error = lintTest(test, graph).find((f) => f.severity === 'error');
  return (
    error && { what: `the test file does not fit its workflow (${error.check}): ${error.message}` }
  );
}

/** Coverage of each tested workflow by the runs of its tests, in the tests' order. */
export function suiteCoverage(
  tests: readonly LoadedTest[],
  results: readonly TestResult[],
  graphs: ReadonlyMap<string, WorkflowGraph>,
): Coverage[] {
  const runs = new Map<string, TestResult['events'][]>();
  tests.forEach((t, i) => {
    const list = runs.get(t.workflow) ?? [];
    list.push(results[i]!.events);
    runs.set(t.workflow, list);
  });
  return [...runs].map(([workflow, events]) => coverage(graphs.get(workflow)!, events));
}

/**
 * The agent CLI of every tested workflow with a markdown state, found
 * before any test runs: a missing `claude` or `pi` is one line, not a
 * failure in every test.
 */
export async function checkAgentClis(tests: readonly LoadedTest[]): Promise<void> {
  const seen = new Set<string>();
  for (const t of tests) {
    // The test's own machine settings (flags.claude_bin), by their run names, as a run's backend reads them.
    const own = Object.fromEntries(
      machineSettings()
        .filter(([key]) => t.spec.flags?.[key] !== undefined)
        .map(([key, s]) => [s.run!, t.spec.flags![key]]),
    );
    const key = `${t.workflow}\0${JSON.stringify(own)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const scope = await openScope(t.workflow);
    try {
      if (!scope.stateFiles().some(isMarkdown)) continue;
      await backendOf(scope.backend).preflight(process.env, own);
    } finally {
      await scope.dispose();
    }
  }
}
