import assert from 'node:assert/strict';
import { appendFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Sandbox, summary } from '../helpers/cli.js';

// A history log line that is JSON with `v: 1` but no record's fields (written by hand, or by
// something else): every reader skips it and says so once, counting the lines it skipped.
describe('a history with lines that are no record', () => {
  it('stats, plan and the cost gate skip them with one warning that counts them', async () => {
    const box = new Sandbox();
    const wf = box.write({ 'START.sh': '#!/bin/sh\necho "<result>ok</result>"\n' }, 'bad-lines');
    assert.equal((await box.run([wf, '--json'])).code, 0);
    const history = join(box.dir, '.raymond', 'history');
    const [key] = readdirSync(history);
    appendFileSync(join(history, key!, 'runs.jsonl'), '{"v":1}\n');
    appendFileSync(join(history, key!, 'steps.jsonl'), '{"v":1}\n');
    const warning = `raymond: warning: ${join(history, key!)}: skipped 2 lines that are no valid history record`;

    const stats = await box.run(['stats', wf]);
    assert.equal(stats.code, 0, stats.stderr);
    assert.equal(stats.stderr.trim(), warning);
    assert.match(stats.stdout, /\b1 run\b/);

    const plan = await box.run(['plan', wf]);
    assert.equal(plan.code, 0, plan.stderr);
    assert.equal(plan.stderr.trim(), warning);

    const run = await box.run([wf, '--json', '--confirm-over', '5']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(summary(run).status, 'completed');
    assert.doesNotMatch(run.stderr, /cannot forecast this run/);
    const gate = run.stderr.split('\n').filter((l) => l.includes('skipped'));
    assert.deepEqual(gate, [
      `warning: the cost gate (--confirm-over) and the budget's reservations: ${join(history, key!)}: skipped 2 lines that are no valid history record`,
    ]);
  });
});
