import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { CLI, Sandbox, sh } from '../helpers/cli.js';
import { CLAUDE_BIN_DIR } from '../helpers/claude-sandbox.js';

/** Credentials a user's shell may hold: none may reach a test's script. */
const CREDENTIALS = [
  'CLAUDE_CODE_OAUTH_TOKEN',
  'RAYMOND_QUEUE_SECRET',
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'AWS_SECRET_ACCESS_KEY',
  'NPM_TOKEN',
  'SSH_AUTH_SOCK',
  'XDG_CONFIG_HOME',
];

describe("raymond test: a test's environment, files and lifetime stay in its sandbox", () => {
  let box: Sandbox;
  /** The temporary folder `raymond test` makes its scratch folders in. */
  let tmp: string;
  /** PATH without `claude`: node and the system's tools only. */
  const PATH = `${dirname(process.execPath)}${delimiter}/usr/bin${delimiter}/bin`;
  before(() => {
    box = new Sandbox();
    tmp = join(box.dir, 'tmp');
    mkdirSync(tmp);
    box.write({
      // Its result: the names of the credentials it sees, then "clean".
      'envf/START.sh': sh(
        'seen=',
        `for v in ${CREDENTIALS.join(' ')}; do [ -n "\${!v+x}" ] && seen="$seen$v "; done`,
        'echo "<result>${seen}clean</result>"',
      ),
      'envf/tests/env.test.yaml': 'expect: { results: { main: clean } }\n',
      'linkf/START.sh': sh('echo "<result>done</result>"'),
      'loopf/START.sh': sh('while true; do echo tick; sleep 0.1; done'),
      'mdf/START.md': 'Reply <result>ok</result>\n',
      'mdf/tests/ok.test.yaml':
        'replies: { START: [ "<result>ok</result>" ] }\nexpect: { results: { main: ok } }\n',
    });
    mkdirSync(join(box.dir, 'outside'));
    writeFileSync(join(box.dir, 'outside/secret.txt'), 'SECRET\n');
    mkdirSync(join(box.dir, 'linkf/tests/seed'), { recursive: true });
    symlinkSync(join(box.dir, 'outside'), join(box.dir, 'linkf/tests/seed/out'));
  });
  after(() => box.remove());

  const env = (extra: Record<string, string> = {}) => ({ PATH, TMPDIR: tmp, ...extra });

  it("#6: a test's scripts see none of the credentials in raymond test's environment", async () => {
    const secrets = Object.fromEntries(CREDENTIALS.map((v) => [v, `secret-${v}`]));
    const r = await box.run(['test', 'envf'], env(secrets));
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^ok {4}envf\/tests\/env\.test\.yaml/m);
  });

  it('#7: files: never writes through a link out of the working directory, expect.files never reads through one', async () => {
    box.write({
      'linkf/tests/write.test.yaml':
        'workdir: seed\nfiles: { out/secret.txt: overwritten }\nexpect: { results: { main: done } }\n',
      'linkf/tests/read.test.yaml':
        'workdir: seed\nexpect: { files: { out/secret.txt: nothing } }\n',
    });
    const r = await box.run(['test', 'linkf'], env());
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.equal(box.read('outside/secret.txt'), 'SECRET\n');
    assert.doesNotMatch(r.stdout, /SECRET/);
    assert.match(
      r.stdout,
      /files: out\/secret\.txt leads outside the test's working directory through a symbolic link/,
    );
    assert.match(r.stdout, /a symbolic link out of the test's working directory: not read/);
  });

  it('#15: an alias bomb, a folder in expect.files, files named "" or "." are each one line naming the file, exit 64 or a failed test', async () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x]',
      ...'bcdefgh'
        .split('')
        .map((c, i) => `${c}: &${c} [${Array(9).fill(`*${'abcdefgh'[i]}`).join(', ')}]`),
    ].join('\n');
    const cases: Array<[string, RegExp]> = [
      [`${bomb}\n`, /^raymond: bad\/tests\/x\.test\.yaml: not valid YAML: /],
      [
        'files: { "": x }\n',
        /^raymond: bad\/tests\/x\.test\.yaml: files: "" is the test's working directory itself, not a file in it$/,
      ],
      [
        'files: { ".": x }\n',
        /^raymond: bad\/tests\/x\.test\.yaml: files: "\." is the test's working directory itself, not a file in it$/,
      ],
      [
        'expect: { files: { "./": x } }\n',
        /^raymond: bad\/tests\/x\.test\.yaml: expect\.files: "\.\/" is the test's working directory itself, not a file in it$/,
      ],
    ];
    box.write({ 'bad/START.sh': sh('mkdir -p made', 'echo "<result>x</result>"') });
    for (const [text, line] of cases) {
      box.write({ 'bad/tests/x.test.yaml': text });
      const r = await box.run(['test', 'bad'], env());
      const stderr = r.stderr.trim();
      assert.equal(r.code, 64, `${text}: ${r.stdout}${stderr}`);
      assert.match(stderr, line, text);
      assert.equal(stderr.split('\n').length, 1, stderr);
    }
    // A folder only the run makes: the test fails, saying so, with no internal error.
    box.write({ 'bad/tests/x.test.yaml': 'expect: { files: { made: x } }\n' });
    const r = await box.run(['test', 'bad'], env());
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /\(a folder, not a file\)/);
    assert.equal(r.stderr, '');
  });

  it('#16: a test past its time limit (timeout:) fails and ends its script; no scratch folder is left', async () => {
    box.write({ 'loopf/tests/loop.test.yaml': 'timeout: 1\nexpect: { status: completed }\n' });
    const r = await box.run(['test', 'loopf'], env());
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /the test ran past its time limit of 1 s \(timeout:\)/);
    assert.deepEqual(readdirSync(tmp), []);
  });

  it('#16: SIGTERM during a test removes its scratch folder and exits 143', async () => {
    box.write({ 'loopf/tests/loop.test.yaml': 'expect: { status: completed }\n' });
    const child = execa(process.execPath, [CLI, 'test', 'loopf'], {
      cwd: box.dir,
      env: env(),
      reject: false,
      stdin: 'ignore',
    });
    // Waits for the outcome to kill into: the test's scratch folder exists.
    while (readdirSync(tmp).length === 0) await sleep(50);
    child.kill('SIGTERM');
    const r = await child;
    assert.equal(r.exitCode, 143, `${r.stdout}${r.stderr}`);
    assert.deepEqual(readdirSync(tmp), []);
  });

  it('#23: --claude-bin runs the tests with that claude when none is on PATH', async () => {
    const r = await box.run(['test', 'mdf', '--claude-bin', join(CLAUDE_BIN_DIR, 'claude')], env());
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^ok {4}mdf\/tests\/ok\.test\.yaml/m);
  });
});
