import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';
import { raymond, summary } from '../../helpers/cli.js';
import { fanOut, priceWorkers } from '../../helpers/fan-out.js';
import { queueWorld, TEST_SECRET } from '../../helpers/queue-workers.js';
import { NO_REDIS } from '../../helpers/redis.js';

/*
 * A budget under --queue (issue 51): the coordinator's supervisor holds the
 * reservations while two `raymond worker` processes run the turns (real
 * `claude`, scripted API), so ten workers at --max-parallel 10 against a
 * budget of 2.5 turns end within the budget plus one turn.
 */

const box = new ClaudeSandbox();
const world = queueWorld(box, (home) => box.env({ HOME: home }));

describe('--queue: the coordinator holds the budget line (real claude, two workers)', () => {
  it('10 workers, a budget of 2.5 turns: the run ends within the budget plus one turn', async (t) => {
    if (!world.redis) return t.skip(NO_REDIS);
    const turn = await priceWorkers(box);
    const ws = await Promise.all(
      ['a', 'b'].map((n) => world.workers.start(`budget-${n}`, { concurrency: 8 })),
    );
    t.after(() => Promise.all(ws.map((w) => w.kill())));
    const budget = 2.5 * turn;
    const before = box.server.served;
    const r = await raymond(
      [
        box.write(fanOut(10), 'qbudget'),
        '--queue',
        world.redis.url,
        '--json',
        '--workflow-id',
        'qbudget',
        '--max-parallel',
        '10',
        '--budget',
        budget.toFixed(6),
      ],
      { cwd: box.dir, env: box.env({ RAYMOND_QUEUE_SECRET: TEST_SECRET }), timeoutMs: 300_000 },
    );
    const out = summary(r);
    const turns = box.server.served - before;
    t.diagnostic(
      `queued: ${turns} turns, spent ${out.total_cost_usd} for ${budget} (a turn ${turn})`,
    );
    assert.equal(r.code, 3, r.stderr.slice(-2000));
    assert.equal(out.status, 'budget_exceeded');
    assert.ok(
      out.total_cost_usd <= budget + turn + 1e-9,
      `${out.total_cost_usd} > ${budget} + ${turn}`,
    );
    assert.ok(turns >= 2 && turns <= 4, `${turns} turns`);
  });
});
