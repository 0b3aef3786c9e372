import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { execa } from 'execa';
import { CLI, Sandbox, sh, summary } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

describe('RAYMOND_STEP_KEY', () => {
  it('is the same when a killed step runs again on --resume, and another on the next visit of the same state', async () => {
    const keys = join(box.dir, 'keys.log');
    const wf = box.write(
      {
        // Visit 1 hangs (the run is killed there); its re-run goes on, and the next visit ends the agent.
        'LOOP.sh': sh(
          `echo "$RAYMOND_STEP_KEY" >> '${keys}'`,
          `c=$(grep -c . '${keys}')`,
          'if [ "$c" = 1 ]; then sleep 60; fi',
          'if [ "$c" -lt 3 ]; then echo "<goto>LOOP.sh</goto>"; else echo "<result>done</result>"; fi',
        ),
      },
      'loop',
    );
    const child = execa(process.execPath, [CLI, join(wf, 'LOOP.sh'), '--workflow-id', 'keys'], {
      cwd: box.dir,
      reject: false,
      stdin: 'ignore',
    });
    for (let i = 0; i < 200 && !existsSync(keys); i++) await sleep(50);
    child.kill('SIGKILL');
    await child;
    const r = await box.run(['--resume', 'keys', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'done');
    const [first, rerun, next] = readFileSync(keys, 'utf8').trim().split('\n');
    assert.match(first!, /^[0-9a-f]{32}$/);
    assert.equal(rerun, first, 'the killed step, run again, has its key');
    assert.notEqual(next, first, 'the next visit of LOOP.sh is another step');
  });
});
