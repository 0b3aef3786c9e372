import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { join } from 'node:path';
import { ROOT, Sandbox, summary } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

describe('bundled examples', () => {
  it('hello prints its result on stdout and records it in the state file', async () => {
    const r = await box.run([join(ROOT, 'workflows/examples/hello'), '--input', 'Raymond']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Hello, Raymond!\n');
    assert.match(r.stderr, /\[main\] running START\.sh/);
    assert.match(r.stderr, /\[main\] START\.sh -> goto GOODBYE\.sh/);
    assert.match(r.stderr, /\[main\] GOODBYE\.sh -> result: Hello, Raymond!/);
  });

  it('the tour runs every tag end to end', async () => {
    const r = await box.run([
      join(ROOT, 'workflows/examples/tour'),
      '--json',
      '--workflow-id',
      'tour-1',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const s = summary(r);
    assert.equal(s.status, 'completed');
    assert.equal(s.workflow_id, 'tour-1');
    assert.equal(s.total_cost_usd, 0);
    assert.deepEqual(s.results, {
      main: 'Tour complete: LIFTOFF!, and three workers forked',
      main_worker1: 'apple has 5 letters (worker main_worker1)',
      main_worker2: 'banana has 6 letters (worker main_worker2)',
      main_worker3: 'cherry has 6 letters (worker main_worker3)',
    });
    for (const line of ['countdown: 3', 'countdown: 1', 'the countdown returned: liftoff'])
      assert.ok(r.stderr.includes(line), `stderr shows "${line}"`);
    const state = box.state('tour-1');
    assert.equal(state.status, 'completed');
    assert.deepEqual(state.fork_counters, { main: 3 });
    assert.deepEqual(state.results, s.results);
    assert.ok(state.agents.every((a) => a.status === 'terminated' && a.stack.length === 0));
  });

  it('compose calls and forks the count-words workflow', async () => {
    const r = await box.run([
      join(ROOT, 'workflows/examples/compose'),
      '--json',
      '--workflow-id',
      'compose-1',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(summary(r).results, {
      main: "composition done; the call counted 4 words in 'the quick brown fox' (agent main)",
      main_countw1: "2 words in 'jumps over' (agent main_countw1)",
      main_countw2: "3 words in 'the lazy dog' (agent main_countw2)",
    });
    assert.match(r.stderr, /\[main\] running count-words\/START\.sh/);
    const agents = box.state('compose-1').agents;
    assert.deepEqual(
      agents.map((a) => [a.id, a.scope ?? null]),
      [
        ['main', null],
        ['main_countw1', join(ROOT, 'workflows/examples/count-words')],
        ['main_countw2', join(ROOT, 'workflows/examples/count-words')],
      ],
    );
  });

  it('countdown.yaml runs a single-file YAML workflow', async () => {
    const r = await box.run([
      join(ROOT, 'workflows/examples/countdown.yaml'),
      '--input',
      '2',
      '--json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(summary(r).results, { main: 'The countdown returned: liftoff' });
    for (const line of ['countdown: 2', 'countdown: 1'])
      assert.ok(r.stderr.includes(line), `stderr shows "${line}"`);
  });
});
