import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { execa, execaSync } from 'execa';
import { CLI, Sandbox, sh, summary } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

/**
 * A file-size limit (`ulimit -f`, in KiB) makes writes past it short and
 * then failing, as a nearly full disk does, for the journal alone: the
 * workflow is one agent counting in `<goto>` steps, so only the journal grows.
 */
function limited(args: string[], kib: number) {
  return execa('bash', ['-c', `ulimit -f ${kib}; exec "$0" "$@"`, process.execPath, CLI, ...args], {
    cwd: box.dir,
    reject: false,
    stdin: 'ignore',
  });
}

describe('a full disk', () => {
  it('stops the run with one line naming the journal, leaves it whole, and the run resumes once there is room', async () => {
    const wf = box.write(
      {
        'START.sh': sh(
          'n=${RAYMOND_INPUT:-0}',
          'if (( n < 150 )); then echo "<goto input=\\"$((n + 1))\\">START</goto>"; else echo "<result>counted $n</result>"; fi',
        ),
      },
      'count',
    );
    const first = await limited([wf, '--workflow-id', 'full', '--quiet', '--no-debug'], 16);
    const journal = join(box.dir, '.raymond/state/full.journal');
    assert.equal(first.exitCode, 1, first.stderr);
    assert.match(
      first.stderr,
      /^raymond: \S+full\.journal: cannot write the state file: EFBIG: .*make room, then resume$/m,
    );
    assert.doesNotMatch(first.stderr, /\n\s+at /, 'no stack trace');
    // Every line of the journal is a whole record: no later line was appended onto a torn one.
    const lines = readFileSync(journal, 'utf8').split('\n');
    assert.equal(lines.pop(), '', 'the journal ends with a whole line');
    for (const line of lines)
      assert.doesNotThrow(() => JSON.parse(line), `a torn line: ${line.slice(0, 80)}`);
    const status = await execa(process.execPath, [CLI, '--status', 'full', '--json'], {
      cwd: box.dir,
      reject: false,
    });
    assert.equal(status.exitCode, 0, status.stderr);
    assert.equal(
      (JSON.parse(status.stdout) as { status: string }).status,
      'interrupted',
      'the disk says the run can go on',
    );
    const resumed = await box.run(['--resume', 'full', '--json']);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(summary(resumed).results, { main: 'counted 150' });
    assert.equal(box.state('full').status, 'completed');
  });
});

/** A tmpfs of few inodes, mounted for the test (needs root): files run out long before bytes do. */
function fewInodes(): string | undefined {
  const dir = join(box.dir, 'few-inodes');
  mkdirSync(dir);
  try {
    execaSync('mount', ['-t', 'tmpfs', '-o', 'size=50m,nr_inodes=64', 'tmpfs', dir]);
  } catch {
    return undefined;
  }
  after(() => execaSync('umount', ['-l', dir], { reject: false }));
  return dir;
}

describe('a disk out of inodes', () => {
  it('is a full disk: one line naming the folder it could not make, ENOSPC and not ENOENT, and the run resumes once there is room', async (t) => {
    const project = fewInodes();
    if (!project) return t.skip('cannot mount a tmpfs here (not root)');
    mkdirSync(join(project, '.raymond'));
    const wf = box.write(
      {
        'START.sh': sh('for i in $(seq 1 80); do printf "<fork next=\\"DONE\\">W</fork>"; done'),
        // It uses its task folder, so each worker's is made before its step.
        'W.sh': sh('touch "$RAYMOND_TASK_FOLDER/w"', 'echo "<result>w</result>"'),
        'DONE.sh': sh('echo "<result>done</result>"'),
      },
      'inodes',
    );
    const run = (args: string[]) =>
      execa(process.execPath, [CLI, ...args], { cwd: project, reject: false, stdin: 'ignore' });
    const first = await run([wf, '--workflow-id', 'inodes', '--quiet', '--no-debug']);
    assert.equal(first.exitCode, 1, first.stderr);
    assert.match(
      first.stderr,
      /^raymond: \S+W\.sh: cannot make the task folder \S+: ENOSPC: no space left on device, mkdir '\S+'; make room, then resume$/m,
    );
    assert.doesNotMatch(first.stderr, /ENOENT|\n\s+at /);
    execaSync('mount', ['-o', 'remount,nr_inodes=4096', project]);
    const resumed = await run(['--resume', 'inodes', '--json']);
    assert.equal(resumed.exitCode, 0, resumed.stderr);
    assert.equal(
      summary({ code: 0, stdout: String(resumed.stdout), stderr: '' }).results.main,
      'done',
    );
  });
});

describe('a folder Raymond cannot make', () => {
  it(
    '--state-dir under /proc is one line and exit 64, not a hang',
    { skip: !process.platform.startsWith('linux') },
    async () => {
      const wf = box.write({ 'START.sh': sh('echo "<result>x</result>"') }, 'proc');
      const r = await box.run([wf, '--state-dir', '/proc/raymond-nope/state']);
      assert.equal(r.code, 64, r.stderr);
      assert.equal(
        r.stderr,
        "raymond: /proc/raymond-nope/state: cannot create the state directory: ENOENT: no such file or directory, mkdir '/proc/raymond-nope'\n",
      );
    },
  );
});
