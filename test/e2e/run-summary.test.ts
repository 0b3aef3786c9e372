import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Sandbox, sh } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

/** The summary's last line on stderr, with the run's figures left as patterns. */
const SUMMARY =
  /^run (\S+) (\S+): (\d+) steps? in \d+\.\ds; agents (.*); cost \$(\d+\.\d+) of (\S+)$/m;

describe('the summary a run ends with', () => {
  it('says status, steps, time, agents done and failed, and cost against the budget', async () => {
    const wf = box.write(
      {
        'START.sh': sh(
          'echo "<fork next=\\"END\\" n=\\"1\\">W</fork><fork next=\\"END\\" n=\\"2\\">W</fork>"',
        ),
        'W.sh': sh('echo "<result>w$n</result>"'),
        'END.sh': sh('echo "<result>end</result>"'),
      },
      'ok',
    );
    const r = await box.run([wf, '--workflow-id', 'sum-ok', '--budget', '2']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'end\n', 'the result alone on stdout');
    const m = SUMMARY.exec(r.stderr);
    assert.ok(m, r.stderr);
    assert.deepEqual(
      [m[1], m[2], m[3], m[4], m[5], m[6]],
      ['sum-ok', 'completed', '4', '3 done, 0 failed', '0.00', '$2.00'],
    );
    assert.match(r.stderr.trimEnd().split('\n').at(-1)!, SUMMARY, 'it is the last line');
  });

  it('counts a failed agent and the unfinished ones of a failed run', async () => {
    const wf = box.write(
      {
        'START.sh': sh('echo "<fork next=\\"BOOM\\">SLOW</fork>"'),
        'SLOW.sh': sh('sleep 5', 'echo "<result>slow</result>"'),
        'BOOM.sh': sh('exit 3'),
      },
      'fail',
    );
    const r = await box.run([wf, '--workflow-id', 'sum-fail', '--budget', '0']);
    assert.equal(r.code, 1, r.stderr);
    const m = SUMMARY.exec(r.stderr);
    assert.ok(m, r.stderr);
    assert.deepEqual([m[2], m[4], m[6]], ['failed', '0 done, 1 failed, 1 unfinished', 'unlimited']);
  });

  it('is left out with --quiet, which keeps the output to the result', async () => {
    const wf = box.write({ 'START.sh': sh('echo "<result>quiet</result>"') }, 'quiet');
    const r = await box.run([wf, '--quiet']);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, 'quiet\n');
    assert.equal(r.stderr, '');
  });
});
