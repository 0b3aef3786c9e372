import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { execa } from 'execa';
import { CLI, Sandbox, sh, summary } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

/**
 * A file-size limit (`ulimit -f`, in KiB) makes writes past it short and
 * then failing, as a nearly full disk does, for the journal alone: the
 * workflow is one agent counting in `<goto>` steps, so only the journal grows.
 */
function limited(args: string[], kib: number) {
  return execa('bash', ['-c', `ulimit -f ${kib}; exec "$0" "$@"`, process.execPath, CLI, ...args], { cwd: box.dir, reject: false, stdin: 'ignore' });
}

describe('a full disk', () => {
  it('stops the run with one line naming the journal, leaves it whole, and the run resumes once there is room', async () => {
    const wf = box.write(
      { 'START.sh': sh('n=${RAYMOND_INPUT:-0}', 'if (( n < 150 )); then echo "<goto input=\\"$((n + 1))\\">START</goto>"; else echo "<result>counted $n</result>"; fi') },
      'count',
    );
    const first = await limited([wf, '--workflow-id', 'full', '--quiet', '--no-debug'], 16);
    const journal = join(box.dir, '.raymond/state/full.journal');
    assert.equal(first.exitCode, 1, first.stderr);
    assert.match(first.stderr, /^raymond: \S+full\.journal: cannot write the state file: EFBIG: .*make room, then resume$/m);
    assert.doesNotMatch(first.stderr, /\n\s+at /, 'no stack trace');
    // Every line of the journal is a whole record: no later line was appended onto a torn one.
    const lines = readFileSync(journal, 'utf8').split('\n');
    assert.equal(lines.pop(), '', 'the journal ends with a whole line');
    for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), `a torn line: ${line.slice(0, 80)}`);
    const status = await execa(process.execPath, [CLI, '--status', 'full', '--json'], { cwd: box.dir, reject: false });
    assert.equal(status.exitCode, 0, status.stderr);
    assert.equal((JSON.parse(status.stdout) as { status: string }).status, 'interrupted', 'the disk says the run can go on');
    const resumed = await box.run(['--resume', 'full', '--json']);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(summary(resumed).results, { main: 'counted 150' });
    assert.equal(box.state('full').status, 'completed');
  });
});
