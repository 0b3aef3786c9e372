import { availableParallelism } from 'node:os';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { RaymondError } from '../errors.js';
import { findTestFiles, loadTestFile, type LoadedTest } from '../testing/test-file.js';
import { runTest, type TestResult } from '../testing/test-runner.js';
import { junitXml, suiteJson, summaryLine, testLines } from '../testing/test-report.js';
import type { WorkflowGraph } from '../analysis/workflow-graph.js';
import { coverageJson, formatCoverage } from '../testing/coverage-report.js';
import {
  checkAgentClis,
  lintDivergence,
  suiteCoverage,
  workflowGraphs,
} from '../testing/test-suite.js';
import { EXIT } from './exit-codes.js';
import { newRunSettings } from './flag-settings.js';
import { machineSettings } from '../settings/setting-values.js';
import { attributeName } from '../setting.js';

/** What `raymond test` is asked. */
export interface TestFlags {
  json?: boolean;
  junit?: string;
  keep?: boolean;
  /** Tests run at once (default: the machine's cores). */
  jobs?: number;
  /** Also print which states and edges of each workflow the tests took. */
  coverage?: boolean;
  /** The backends' machine settings (`--claude-bin`), by commander's names: for every test whose `flags:` give none. */
  [machineFlag: string]: unknown;
}

/**
 * Runs tests at most `--jobs` at a time and hands each result over in the
 * tests' order, as soon as it and those before it are done: the output is
 * the same whichever finishes first.
 */
async function runAll(
  tests: readonly LoadedTest[],
  graphs: ReadonlyMap<string, WorkflowGraph>,
  flags: TestFlags,
  signal: AbortSignal,
  shown: (r: TestResult) => void,
): Promise<TestResult[]> {
  const results: Array<TestResult | undefined> = [];
  let next = 0;
  let printed = 0;
  const worker = async () => {
    while (next < tests.length && !signal.aborted) {
      const i = next++;
      const test = tests[i]!;
      // The test's own flags only: a user's config file must not change what a test does.
      const settings = newRunSettings({}, test.spec.flags ?? {});
      const unfit = lintDivergence(test, graphs.get(test.workflow)!);
      results[i] = unfit
        ? {
            file: test.file,
            name: test.name,
            passed: false,
            divergence: unfit,
            costUsd: 0,
            events: [],
          }
        : await runTest(test, { settings, keep: !!flags.keep, signal });
      while (results[printed]) shown(results[printed++]!);
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(flags.jobs ?? availableParallelism(), tests.length) }, worker),
  );
  return results as TestResult[];
}

/**
 * The test with the machine settings given as flags (`--claude-bin`) in its
 * `flags:` where it gives none (absolute: a test runs in its scratch folder).
 */
function withMachineFlags(test: LoadedTest, flags: TestFlags): LoadedTest {
  const given: Record<string, string> = {};
  for (const [key, s] of machineSettings()) {
    const value = flags[attributeName(s.flag!)];
    if (typeof value === 'string' && test.spec.flags?.[key] === undefined)
      given[key] = resolve(value);
  }
  if (Object.keys(given).length === 0) return test;
  return { ...test, spec: { ...test.spec, flags: { ...test.spec.flags, ...given } } };
}

/** `raymond test [PATH...]`: runs every workflow test under the paths, offline; exits 1 when one fails. */
export async function testCommand(paths: readonly string[], flags: TestFlags): Promise<number> {
  const files = findTestFiles(paths.length > 0 ? paths : ['.']);
  if (files.length === 0)
    throw new RaymondError(
      'ERR_USAGE',
      `no workflow tests under ${paths.length > 0 ? paths.join(', ') : 'this folder'} (files named tests/*.test.yaml)`,
    );
  const tests = files.map((f) => withMachineFlags(loadTestFile(f), flags));
  const graphs = await workflowGraphs(tests);
  await checkAgentClis(tests);
  // Ctrl-C stops every test's run; each removes its scratch folder as it ends.
  const stop = new AbortController();
  let signal: NodeJS.Signals | undefined;
  const interrupt = (got: NodeJS.Signals) => {
    signal ??= got;
    stop.abort();
  };
  // `on`, not `once`: a `once` handler is gone when execa's exit hook looks, and it then kills the process before any folder is removed.
  process.on('SIGINT', interrupt).on('SIGTERM', interrupt);
  const results = await runAll(tests, graphs, flags, stop.signal, (r) => {
    if (!flags.json) process.stdout.write(`${testLines(r).join('\n')}\n`);
  }).finally(() => process.off('SIGINT', interrupt).off('SIGTERM', interrupt));
  if (stop.signal.aborted) return signal === 'SIGTERM' ? EXIT.terminated : EXIT.interrupted;
  const covered = flags.coverage ? suiteCoverage(tests, results, graphs) : [];
  if (flags.json) {
    const json = {
      ...suiteJson(results),
      ...(flags.coverage ? { coverage: covered.map(coverageJson) } : {}),
    };
    process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
  } else {
    for (const c of covered) process.stdout.write(`${formatCoverage(c)}\n`);
    process.stdout.write(`${summaryLine(results)}\n`);
  }
  if (flags.junit) writeFileSync(flags.junit, junitXml(results));
  return results.every((r) => r.passed) ? EXIT.completed : EXIT.failed;
}
