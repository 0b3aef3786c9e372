import { dirname, join, relative, resolve } from 'node:path';
import { Document, isMap, isPair, isScalar, isSeq, visit, type Pair } from 'yaml';
import type { RecordedRun } from './record.js';
import { TEST_SUFFIX } from './test-file.js';
import type { TestSpec } from './test-spec-schema.js';

/**
 * Where `raymond record` writes a run's test when `--out` is not given: in
 * the `tests/` folder of a folder workflow (`tests/<run id>.test.yaml`, which
 * `raymond test` finds); undefined (stdout) for a workflow that is one file.
 */
export function defaultTestFile(recorded: RecordedRun, runId: string): string | undefined {
  return recorded.workflow.folder
    ? join(recorded.workflow.path, 'tests', `${runId}${TEST_SUFFIX}`)
    : undefined;
}

/** The workflow a test at `file` tests when it does not say: the folder holding its `tests/` folder. */
function impliedWorkflow(file: string): string {
  const folder = dirname(resolve(file));
  return folder.endsWith('/tests') || folder.endsWith('\\tests') ? dirname(folder) : folder;
}

function keyOf(pair: Pair): unknown {
  return isScalar(pair.key) ? pair.key.value : pair.key;
}

/**
 * The test file's text: a comment naming the run it came from, then the
 * spec in block style. `file` is where it goes (undefined: stdout, read
 * from `cwd`): `workflow:` is written relative to it, unless it is the
 * folder the test's place implies.
 */
export function testFileText(
  recorded: RecordedRun,
  runId: string,
  file: string | undefined,
  cwd = process.cwd(),
): string {
  const at = file === undefined ? cwd : dirname(resolve(cwd, file));
  const workflow = recorded.workflow.path;
  const implied = file !== undefined && impliedWorkflow(resolve(cwd, file)) === resolve(workflow);
  const spec: TestSpec = {
    ...(implied ? {} : { workflow: relative(at, workflow) || '.' }),
    ...recorded.spec,
  };
  const doc = new Document(spec);
  // Short pairs and paths on one line: `tokens: { input: 1000, output: 50 }`, `main: [START, PLAN]`.
  visit(doc, {
    Pair(_, pair, ancestors) {
      const inPaths = ancestors.some((a) => isPair(a) && keyOf(a) === 'paths');
      if ((keyOf(pair) === 'tokens' && isMap(pair.value)) || (inPaths && isSeq(pair.value)))
        pair.value.flow = true;
    },
  });
  doc.commentBefore = [
    ` Recorded by \`raymond record ${runId}\` from the run started ${recorded.startedAt}.`,
    ' Replay it with `raymond test` (free: a scripted model gives these replies).',
    ...(file === undefined
      ? [' `workflow:` is relative to this file: move it, or edit the path.']
      : []),
  ].join('\n');
  return doc.toString({ lineWidth: 0, blockQuote: 'literal' });
}
