import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { describe, it } from 'node:test';
import { runCheck } from '../../src/merge/check-command.js';

const never = new AbortController().signal;

describe('runCheck', () => {
  it('passes on exit 0 and fails on any other, with stdout and stderr as they came', async () => {
    assert.deepEqual(await runCheck('echo fine', tmpdir(), 10_000, {}, never), {
      passed: true,
      how: '',
      output: 'fine\n',
    });
    assert.deepEqual(
      await runCheck('echo out; echo err >&2; exit 3', tmpdir(), 10_000, {}, never),
      { passed: false, how: 'exited with 3', output: 'out\nerr\n' },
    );
  });

  it('sees the environment it is given, and runs in the folder', async () => {
    const r = await runCheck(
      'echo "$RAYMOND_AGENT_ID $(pwd)"',
      '/',
      10_000,
      { RAYMOND_AGENT_ID: 'main_w1' },
      never,
    );
    assert.equal(r.output, 'main_w1 /\n');
  });

  it('kills a check that prints nothing for too long, with its children', async () => {
    const r = await runCheck('echo started; sleep 30', tmpdir(), 1000, {}, never);
    assert.deepEqual(r, {
      passed: false,
      how: 'printed nothing for 1 s and was killed',
      output: 'started\n',
    });
  });

  it('keeps the end of a long output', async () => {
    const r = await runCheck(
      'yes x | head -c 20000; echo last line; exit 1',
      tmpdir(),
      10_000,
      {},
      never,
    );
    assert.equal(r.output.length, 8192);
    assert.ok(r.output.endsWith('x\nlast line\n'));
  });
});
