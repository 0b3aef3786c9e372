import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { RaymondError } from '../../src/errors.js';
import { findTestFiles, loadTestFile, stateStem } from '../../src/testing/test-file.js';

const dir = mkdtempSync(join(tmpdir(), 'raymond-test-file-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function write(path: string, text: string): string {
  const full = join(dir, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, text);
  return full;
}

/** The ERR_TEST_FILE message a file gives. */
function problem(text: string): string {
  const file = write('wf/tests/p.test.yaml', text);
  try {
    loadTestFile(file);
  } catch (err) {
    assert.ok(err instanceof RaymondError);
    assert.equal(err.code, 'ERR_TEST_FILE');
    assert.equal(err.file, file);
    return err.message;
  }
  assert.fail('loaded');
}

describe('loadTestFile', () => {
  write('wf/START.md', 'x');
  it('takes the workflow to be the folder holding tests/, and the name from the file', () => {
    const file = write(
      'wf/tests/happy-path.test.yaml',
      'input: hi\nreplies:\n  START: [ "<result>x</result>" ]\n',
    );
    const t = loadTestFile(file);
    assert.equal(t.workflow, join(dir, 'wf'));
    assert.equal(t.name, 'happy-path');
    assert.equal(t.spec.input, 'hi');
  });
  it('takes `name:` and `workflow:` when given, and normalises flag names', () => {
    write('other.yaml', 'x');
    const t = loadTestFile(
      write(
        'wf/tests/n.test.yaml',
        'name: Named\nworkflow: ../../other.yaml\nflags: { max-parallel: 2, budget: 1 }\n',
      ),
    );
    assert.equal(t.name, 'Named');
    assert.equal(t.workflow, join(dir, 'other.yaml'));
    assert.deepEqual(t.spec.flags, { max_parallel: 2, budget: 1 });
  });
  it('names the field at fault in one line', () => {
    assert.equal(
      problem('replies: { START: [ 7 ] }\n'),
      'replies.START[0] is 7; it must be a reply text, or { text, tools, tokens, agent, when }',
    );
    assert.equal(
      problem('expct: {}\n'),
      'expct is not a key here (keys: name, workflow, input, flags, env, workdir, files, timeout, git, replies, scripts, answers, expect)',
    );
    assert.equal(problem('flags: { nope: 1 }\n'), 'flags.nope: no such run option');
    assert.match(problem('workflow: ../missing\n'), /^its workflow .*wf\/missing does not exist$/);
    assert.equal(
      problem('expect: { results: { main: { match: "(" } } }\n'),
      'expect of main: ( is not a regular expression',
    );
    assert.equal(
      problem('expect: { files: { /etc/passwd: x } }\n'),
      "expect.files: /etc/passwd is outside the test's working directory",
    );
    assert.match(problem('a: [\n'), /^not valid YAML: /);
  });
});

describe('findTestFiles', () => {
  it('finds tests/*.test.yaml below folders, sorted, and skips node_modules and .raymond', () => {
    write('tree/b/tests/two.test.yaml', '{}');
    write('tree/a/tests/one.test.yaml', '{}');
    write('tree/a/not-a-test.yaml', '{}');
    write('tree/a/one.test.yaml', '{}');
    write('tree/node_modules/x/tests/hidden.test.yaml', '{}');
    write('tree/.raymond/tests/hidden.test.yaml', '{}');
    assert.deepEqual(findTestFiles([join(dir, 'tree')]), [
      join(dir, 'tree/a/tests/one.test.yaml'),
      join(dir, 'tree/b/tests/two.test.yaml'),
    ]);
  });
  it('takes a named test file as it is, and refuses other files and missing paths', () => {
    const file = join(dir, 'tree/a/one.test.yaml');
    assert.deepEqual(findTestFiles([file]), [file]);
    assert.throws(
      () => findTestFiles([join(dir, 'tree/a/not-a-test.yaml')]),
      /a test file's name ends with \.test\.yaml/,
    );
    assert.throws(() => findTestFiles([join(dir, 'nowhere')]), /no such file or folder/);
  });
});

describe('stateStem', () => {
  it('drops a state extension only', () => {
    assert.deepEqual(['REVIEW.md', 'CHECK.sh', 'RUN.ps1', 'PLAIN', 'v1.2'].map(stateStem), [
      'REVIEW',
      'CHECK',
      'RUN',
      'PLAIN',
      'v1.2',
    ]);
  });
});
