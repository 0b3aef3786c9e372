import { availableParallelism } from 'node:os';
import { writeFileSync } from 'node:fs';
import { RaymondError } from '../errors.js';
import { findTestFiles, loadTestFile, type LoadedTest } from '../testing/test-file.js';
import { runTest, type TestResult } from '../testing/test-runner.js';
import { junitXml, suiteJson, summaryLine, testLines } from '../testing/test-report.js';
import { EXIT } from './exit-codes.js';
import { newRunSettings } from './settings.js';

/** What `raymond test` is asked. */
export interface TestFlags {
  json?: boolean;
  junit?: string;
  keep?: boolean;
  /** Tests run at once (default: the machine's cores). */
  jobs?: number;
}

/**
 * Runs tests at most `--jobs` at a time and hands each result over in the
 * tests' order, as soon as it and those before it are done: the output is
 * the same whichever finishes first.
 */
async function runAll(
  tests: readonly LoadedTest[],
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
      results[i] = await runTest(test, { settings, keep: !!flags.keep, signal });
      while (results[printed]) shown(results[printed++]!);
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(flags.jobs ?? availableParallelism(), tests.length) }, worker),
  );
  return results as TestResult[];
}

/** `raymond test [PATH...]`: runs every workflow test under the paths, offline; exits 1 when one fails. */
export async function testCommand(paths: readonly string[], flags: TestFlags): Promise<number> {
  const files = findTestFiles(paths.length > 0 ? paths : ['.']);
  if (files.length === 0)
    throw new RaymondError(
      'ERR_USAGE',
      `no workflow tests under ${paths.length > 0 ? paths.join(', ') : 'this folder'} (files named tests/*.test.yaml)`,
    );
  const tests = files.map(loadTestFile);
  // Ctrl-C stops every test's run; each removes its scratch folder as it ends.
  const stop = new AbortController();
  const interrupt = () => stop.abort();
  process.once('SIGINT', interrupt).once('SIGTERM', interrupt);
  const results = await runAll(tests, flags, stop.signal, (r) => {
    if (!flags.json) process.stdout.write(`${testLines(r).join('\n')}\n`);
  }).finally(() => process.off('SIGINT', interrupt).off('SIGTERM', interrupt));
  if (stop.signal.aborted) return EXIT.interrupted;
  if (flags.json) process.stdout.write(`${JSON.stringify(suiteJson(results), null, 2)}\n`);
  else process.stdout.write(`${summaryLine(results)}\n`);
  if (flags.junit) writeFileSync(flags.junit, junitXml(results));
  return results.every((r) => r.passed) ? EXIT.completed : EXIT.failed;
}
