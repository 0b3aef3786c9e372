import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { resumedToEnd, stoppedAtBudget } from '../../helpers/budget-hard.js';
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
    // pi's bash, which the long turn calls.
    const { out } = await stoppedAtBudget(box, wf, 'pihard', budget, [
      '--dangerously-skip-permissions',
    ]);
    stoppedAfter = box.server.requestsFor('PI-HARD-LONG').length;
    assert.equal(stoppedAfter, 4, 'stopped at the message that took the run to the budget');
    assert.ok(
      Math.abs(out.total_cost_usd - 4 * MESSAGE) < 1e-9,
      `${out.total_cost_usd} for a budget of ${budget}`,
    );
    assert.ok(out.total_cost_usd <= budget + MESSAGE);
  });

  it('--resume with a larger budget goes on in that session and completes', async () => {
    const before = box.server.requests.length;
    const out = await resumedToEnd(box, 'pihard', 30 * MESSAGE);
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
