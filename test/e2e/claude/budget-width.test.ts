import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { summary } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';
import { fanOut, priceWorkers } from '../../helpers/fan-out.js';

/*
 * A budget at width (issue 51's shape): 10 markdown workers at
 * `--max-parallel 10`, each one real `claude` turn at a known cost, against
 * a budget of 2.5 turns. Before reservations every turn had started before
 * the first one was charged: the run spent 10 turns (9.2x its budget in the
 * issue). Each paid step now reserves its state's p90 forecast before it
 * starts: the run ends within the budget plus one turn.
 */

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

describe('a budget that holds at width (real claude, scripted API)', () => {
  let turn = 0;

  before(async () => {
    // One turn's price, from a workflow of its own (no history for the runs below).
    turn = await priceWorkers(box);
  });

  for (const history of ['no history: the prior', 'the history of the run before'] as const)
    it(`10 workers at --max-parallel 10, a budget of 2.5 turns, ${history}: ends within the budget plus one turn`, async (t) => {
      const budget = 2.5 * turn;
      const id = history.startsWith('no') ? 'wide1' : 'wide2';
      const before = box.server.served;
      const r = await box.run([
        box.write(fanOut(10), 'wide'),
        '--json',
        '--workflow-id',
        id,
        '--max-parallel',
        '10',
        '--budget',
        budget.toFixed(6),
      ]);
      const out = summary(r);
      const turns = box.server.served - before;
      t.diagnostic(
        `${history}: budget ${budget.toFixed(4)}, a turn ${turn.toFixed(4)}: ${turns} turns, spent ${out.total_cost_usd.toFixed(4)} (${(out.total_cost_usd / budget).toFixed(2)}x the budget)`,
      );
      assert.equal(r.code, 3, r.stderr.slice(-2000));
      assert.equal(out.status, 'budget_exceeded');
      assert.ok(
        out.total_cost_usd <= budget + turn + 1e-9,
        `spent ${out.total_cost_usd} for a budget of ${budget} (a turn ${turn}): ${turns} turns`,
      );
      assert.ok(turns >= 2 && turns <= 4, `${turns} turns`);
      assert.match(
        out.error!,
        /no new step was started; the \d+ markdown steps waiting would need about \$[\d.]+ more/,
      );
      // The workers that never started stay where they were: a --resume with more budget runs them.
      const waiting = box
        .state(id)
        .agents.filter((a) => a.status === 'active' && a.state === 'WORKER.md');
      assert.equal(waiting.length, 10 - turns);
    });

  it('--resume with a larger budget finishes the run, each worker answered once', async () => {
    const before = box.server.served;
    const r = await box.run(['--resume', 'wide2', '--json', '--budget', (20 * turn).toFixed(6)]);
    assert.equal(r.code, 0, r.stderr.slice(-2000));
    const out = summary(r);
    assert.equal(out.status, 'completed');
    const answered = Object.values(out.results).filter((v) => /^worker \d+ done$/.test(v));
    assert.equal(answered.length, 10);
    assert.ok(box.server.served - before <= 8);
  });
});
