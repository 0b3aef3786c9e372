import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { RaymondError } from '../errors.js';
import { SettingProblem } from '../setting.js';
import { settingOf } from '../settings/setting-values.js';
import { isInside } from '../scope/contained-file.js';
import { TEST_SPEC_CHECK, type TestSpec, type TextCheck } from './test-spec-schema.js';

/** What a test file's name ends with. */
export const TEST_SUFFIX = '.test.yaml';
/** Folders never searched for tests: they hold dependencies, runs and history, not workflows. */
const SKIPPED = new Set(['node_modules', '.git', '.raymond']);

/** A test file read and checked: its spec, and where its workflow is. */
export interface LoadedTest {
  /** The test file, as given or found (relative to where Raymond runs when it can be). */
  file: string;
  /** The test's name: `name:`, else the file name without `.test.yaml`. */
  name: string;
  /** Absolute path of the workflow under test. */
  workflow: string;
  spec: TestSpec;
}

/** The workflow a test file tests when it does not say: the folder that holds its `tests/` folder, else its own folder. */
function defaultWorkflow(file: string): string {
  const folder = dirname(resolve(file));
  return basename(folder) === 'tests' ? dirname(folder) : folder;
}

/** Reads one test file; a file Raymond cannot use is one ERR_TEST_FILE naming it and the problem. */
export function loadTestFile(file: string): LoadedTest {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new RaymondError(
      'ERR_TEST_FILE',
      code === 'ENOENT' ? 'no such test file' : `cannot read it (${code})`,
      {
        file,
      },
    );
  }
  const doc = parseDocument(text, { prettyErrors: false });
  const first = doc.errors[0];
  if (first)
    throw new RaymondError('ERR_TEST_FILE', `not valid YAML: ${first.message.split('\n')[0]}`, {
      file,
    });
  let value: unknown;
  try {
    value = doc.toJS() ?? {};
  } catch (err) {
    // The yaml package refuses a document whose aliases expand too far (an alias bomb) only here.
    throw new RaymondError('ERR_TEST_FILE', `not valid YAML: ${(err as Error).message}`, { file });
  }
  const problem = TEST_SPEC_CHECK.problem(value, 'the test');
  if (problem) throw new RaymondError('ERR_TEST_FILE', problem, { file });
  const spec = value as TestSpec;
  spec.flags = checkedFlags(spec.flags, file);
  const workflow = spec.workflow ? resolve(dirname(file), spec.workflow) : defaultWorkflow(file);
  if (!existsSync(workflow))
    throw new RaymondError(
      'ERR_TEST_FILE',
      `its workflow ${relative(process.cwd(), workflow) || '.'} does not exist`,
      {
        file,
      },
    );
  if (spec.workdir && !statOrNull(resolve(dirname(file), spec.workdir))?.isDirectory())
    throw new RaymondError(
      'ERR_TEST_FILE',
      `workdir ${spec.workdir} is not a folder beside the test file`,
      { file },
    );
  const named: Array<[string, string[]]> = [
    ['files', Object.keys(spec.files ?? {})],
    ['expect.files', Object.keys(spec.expect?.files ?? {})],
    ...Object.entries(spec.expect?.branches ?? {}).map(([b, files]): [string, string[]] => [
      `expect.branches.${b}`,
      Object.keys(files),
    ]),
  ];
  for (const [key, names] of named) {
    const itself = names.find((name) => resolve('/work', name) === '/work');
    if (itself !== undefined)
      throw new RaymondError(
        'ERR_TEST_FILE',
        `${key}: ${JSON.stringify(itself)} is the test's working directory itself, not a file in it`,
        { file },
      );
    const outside = names.find((name) => !isInside('/work', resolve('/work', name)));
    if (outside !== undefined)
      throw new RaymondError(
        'ERR_TEST_FILE',
        `${key}: ${outside} is outside the test's working directory`,
        {
          file,
        },
      );
  }
  const checks: Array<[string, TextCheck | null]> = [
    ...Object.entries(spec.expect?.results ?? {}),
    ...Object.entries(spec.expect?.files ?? {}),
    ...Object.values(spec.expect?.branches ?? {}).flatMap((files) => Object.entries(files)),
  ];
  for (const [name, check] of checks) {
    if (check && typeof check === 'object' && !isRegExp(check.match))
      throw new RaymondError(
        'ERR_TEST_FILE',
        `expect of ${name}: ${check.match} is not a regular expression`,
        {
          file,
        },
      );
  }
  return { file, name: spec.name ?? basename(file).slice(0, -TEST_SUFFIX.length), workflow, spec };
}

/** A test's `flags:` checked as the config file's keys are (`max-parallel` is `max_parallel`); an unknown one is refused. */
function checkedFlags(flags: TestSpec['flags'], file: string): TestSpec['flags'] {
  if (flags === undefined) return undefined;
  const out: NonNullable<TestSpec['flags']> = {};
  for (const [given, value] of Object.entries(flags)) {
    const key = given.replace(/-/g, '_');
    const setting = settingOf(key);
    if (!setting || key.startsWith('queue.'))
      throw new RaymondError('ERR_TEST_FILE', `flags.${given}: no such run option`, { file });
    try {
      setting.check(value);
    } catch (err) {
      if (err instanceof SettingProblem)
        throw new RaymondError('ERR_TEST_FILE', `flags.${given}: ${err.message}`, { file });
      throw err;
    }
    out[key] = value;
  }
  return out;
}

function isRegExp(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

function statOrNull(path: string) {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

/**
 * The test files under each path, sorted: a `.test.yaml` file is itself; a
 * folder gives every `.test.yaml` inside a `tests/` folder below it.
 */
export function findTestFiles(paths: readonly string[]): string[] {
  const found = new Set<string>();
  for (const path of paths) {
    const stat = statOrNull(path);
    if (!stat) throw new RaymondError('ERR_USAGE', `${path}: no such file or folder`);
    if (stat.isFile()) {
      if (!path.endsWith(TEST_SUFFIX))
        throw new RaymondError('ERR_USAGE', `${path}: a test file's name ends with ${TEST_SUFFIX}`);
      found.add(path);
    } else walk(path, found);
  }
  return [...found].sort();
}

function walk(folder: string, found: Set<string>): void {
  const entries = readdirSync(folder, { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name),
  );
  for (const e of entries) {
    if (e.isDirectory() && !SKIPPED.has(e.name)) walk(join(folder, e.name), found);
    else if (e.isFile() && basename(folder) === 'tests' && e.name.endsWith(TEST_SUFFIX))
      found.add(join(folder, e.name));
  }
}

/** A state name as tests write it: the file name without its extension (`REVIEW.md` and `REVIEW` are one state). */
export function stateStem(state: string): string {
  return state.replace(/\.(md|sh|bat|ps1)$/i, '');
}
