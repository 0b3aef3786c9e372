import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { summary } from '../../helpers/cli.js';
import { PiSandbox } from '../../helpers/pi-sandbox.js';

/*
 * --budget-hard on pi: pi's stream carries each message's cost as it ends
 * (message_end), so a long turn is stopped at the message that takes the
 * run to the budget, and a resume goes on in its session.
 */

const box = new PiSandbox();
before(() => box.start());
after(() => box.stop());

/** A model message's usage, and its price at the test model's $3 / $15 per million tokens. */
const USAGE = { input_tokens: 100_000, output_tokens: 100 };
const MESSAGE = (100_000 * 3 + 100 * 15) / 1e6;
/** The turn calls a tool until its conversation holds this many messages: about ten model messages. */
const LONG = 21;

describe('--budget-hard on pi (real pi, scripted API)', () => {
  const budget = 3.5 * MESSAGE;
  let stoppedAfter = 0;

  before(() => {
    box.server.on('PI-HARD-LONG', (r) =>
      r.messageCount < LONG
        ? { toolUse: { name: 'bash', input: { command: 'sleep 1' } }, usage: USAGE }
        : { text: '<result>long done</result>', usage: USAGE },
    );
  });

  it('stops the turn at the message that reaches the budget: paused in its session, charged what pi streamed', async () => {
    const wf = box.write({ 'workflow.yaml': 'backend: pi\n', 'START.md': 'PI-HARD-LONG' }, 'long');
    const r = await box.run([
      wf,
      '--json',
      '--workflow-id',
      'pihard',
      '--budget',
      budget.toFixed(6),
      '--budget-hard',
      // pi's bash, which the long turn calls.
      '--dangerously-skip-permissions',
    ]);
    const out = summary(r);
    stoppedAfter = box.server.requestsFor('PI-HARD-LONG').length;
    assert.equal(r.code, 3, r.stderr.slice(-2000));
    assert.equal(out.status, 'budget_exceeded');
    assert.equal(stoppedAfter, 4, 'stopped at the message that took the run to the budget');
    assert.ok(
      Math.abs(out.total_cost_usd - 4 * MESSAGE) < 1e-9,
      `${out.total_cost_usd} for a budget of ${budget}`,
    );
    assert.ok(out.total_cost_usd <= budget + MESSAGE);
    const main = box.state('pihard').agents[0]!;
    assert.equal(main.status, 'paused');
    assert.match(main.error!, /stopped by --budget-hard/);
    assert.ok(main.session, 'the session pi named in its stream is kept');
  });

  it('--resume with a larger budget goes on in that session and completes', async () => {
    const before = box.server.requests.length;
    const r = await box.run([
      '--resume',
      'pihard',
      '--json',
      '--budget',
      (30 * MESSAGE).toFixed(6),
    ]);
    const out = summary(r);
    assert.equal(r.code, 0, r.stderr.slice(-2000));
    assert.equal(out.results.main, 'long done');
    const resumed = box.server.requests.slice(before).filter((q) => q.main);
    assert.ok(
      resumed[0]!.messageCount > 5,
      `${resumed[0]!.messageCount} messages: the stopped turn's`,
    );
    assert.ok(
      Math.abs(out.total_cost_usd - (stoppedAfter + resumed.length) * MESSAGE) < 1e-9,
      `${out.total_cost_usd}: every message charged once`,
    );
  });
});
