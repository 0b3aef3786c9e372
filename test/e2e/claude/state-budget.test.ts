import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cappedWorker, longTurn, priceMessage } from '../../helpers/budget-hard.js';
import { joinedEntries } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';

/*
 * A state's `budget:` (issue 51): each visit of the state may spend so
 * much. A forked worker's long turn (real `claude`, scripted API: a tool
 * call a message, each message of a known usage) is stopped once the
 * visit reaches its budget; the worker fails alone with error budget, its
 * join gets it, and the parent completes.
 */

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

describe("a state's budget: caps each visit (real claude, scripted API)", () => {
  it('a worker whose visit passes its budget: is stopped mid-turn and fails alone; the parent completes', async () => {
    box.server.on(
      'VISIT-LONG',
      longTurn(() => 'long done'),
    );
    const message = await priceMessage(box, 'probe');
    const cap = 2.5 * message;
    const wf = box.write(cappedWorker('VISIT-LONG: work until done.', cap), 'visit');
    const before = box.server.served;
    const r = await box.run(
      [wf, '--json', '--workflow-id', 'visit', '--dangerously-skip-permissions'],
      { IS_SANDBOX: '1' },
    );
    const [entry] = joinedEntries(r);
    assert.equal(entry!.status, 'failed');
    assert.match(
      entry!.error!,
      /budget: this state's budget of \$[\d.]+ a visit is spent \(\$[\d.]+\); no further turn was started/,
    );
    const served = box.server.served - before;
    assert.ok(served >= 3 && served < 10, `${served} messages of the ten the turn would take`);
    assert.ok(
      entry!.cost_usd > 0 && entry!.cost_usd <= cap + message + 1e-9,
      `${entry!.cost_usd} for a cap of ${cap}`,
    );
  });
});
