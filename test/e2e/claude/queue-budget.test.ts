import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { priceOf } from '../../../src/agents/anthropic-prices.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';
import { raymond, summary } from '../../helpers/cli.js';
import { fanOut, priceWorkers } from '../../helpers/fan-out.js';
import { queueWorld, TEST_SECRET } from '../../helpers/queue-workers.js';
import { NO_REDIS } from '../../helpers/redis.js';

/*
 * A budget under --queue (issue 51): the coordinator's supervisor holds the
 * reservations while two `raymond worker` processes run the turns (real
 * `claude`, scripted API), so ten workers at --max-parallel 10 against a
 * budget of 2.5 turns end within the budget plus one turn. With
 * --budget-hard, a worker sends its running turn's streamed cost to the
 * coordinator, whose meter stops the turn through the job's cancel path.
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

/** A model message's usage in the long turn: the cost of the turn is in these. */
const USAGE = { input_tokens: 100_000, output_tokens: 100 };
/** The long turn calls a tool until its conversation holds this many messages: about ten model messages. */
const LONG = 21;

describe("--queue --budget-hard: the coordinator stops a worker's turn at the budget (real claude)", () => {
  it('a long turn on a worker is stopped mid-stream, its agent paused; --resume with a larger budget finishes it', async (t) => {
    if (!world.redis) return t.skip(NO_REDIS);
    box.server.on('QHARD-PROBE', { text: '<result>probe</result>', usage: USAGE });
    // Each tool call takes 3 s: the worker reads the coordinator's cancel flag with its heartbeat (each second),
    // so the turn is killed before it asks for its next message.
    box.server.on('QHARD-LONG', (r) =>
      r.messageCount < LONG
        ? {
            toolUse: { name: 'Bash', input: { command: 'sleep 3', description: 'work' } },
            usage: USAGE,
          }
        : { text: '<result>long done</result>', usage: USAGE },
    );
    const probe = await box.run([
      box.write({ 'START.md': 'QHARD-PROBE' }, 'qhard-probe'),
      '--json',
      '--workflow-id',
      'qhard-probe',
    ]);
    const message = summary(probe).total_cost_usd;
    assert.ok(message > 0, probe.stderr);
    const budget = 3.5 * message;
    const w = await world.workers.start('hard', { concurrency: 2 });
    t.after(() => w.kill());
    const env = box.env({ RAYMOND_QUEUE_SECRET: TEST_SECRET });
    const queued = ['--queue', world.redis.url, '--json', '--dangerously-skip-permissions'];
    const served = box.server.served;
    const r = await raymond(
      [
        box.write({ 'START.md': 'QHARD-LONG' }, 'qhard'),
        ...queued,
        '--workflow-id',
        'qhard',
        '--budget',
        budget.toFixed(6),
        '--budget-hard',
      ],
      { cwd: box.dir, env, timeoutMs: 300_000 },
    );
    const out = summary(r);
    const messages = box.server.served - served;
    t.diagnostic(`stopped after ${messages} messages: ${out.total_cost_usd} for ${budget}`);
    assert.equal(r.code, 3, r.stderr.slice(-2000));
    assert.equal(out.status, 'budget_exceeded');
    assert.match(out.error!, /the turns running as it was reached were stopped \(--budget-hard\)/);
    assert.equal(messages, 4, 'stopped at the message that took the run to the budget');
    // A stopped turn is charged its streamed usage (never $0): its messages' input, priced by the table.
    const model = box.server.requests.at(-1)!.model;
    const streamed = (USAGE.input_tokens * priceOf(model).price.input) / 1e6;
    assert.ok(
      Math.abs(out.total_cost_usd - 4 * streamed) < 1e-9,
      `${out.total_cost_usd}: 4 messages of ${streamed} (${model})`,
    );
    assert.ok(out.total_cost_usd <= budget + message + 1e-9, `${out.total_cost_usd}`);
    const main = box.state('qhard').agents[0]!;
    assert.equal(main.status, 'paused', JSON.stringify(main));
    assert.match(main.error!, /stopped by --budget-hard: the run's cost reached its budget/);
    assert.equal(main.session, main.next_session, 'the agent keeps the session its turn ran in');

    const before = box.server.requests.length;
    const resumed = await raymond(
      ['--resume', 'qhard', ...queued, '--budget', (30 * message).toFixed(6)],
      { cwd: box.dir, env, timeoutMs: 300_000 },
    );
    assert.equal(resumed.code, 0, resumed.stderr.slice(-2000));
    assert.equal(summary(resumed).results.main, 'long done');
    // The worker got the stopped session's transcript: the resumed turn's first request carries its tool calls.
    const first = box.server.requests.slice(before).find((q) => q.main)!;
    assert.ok(first.messageCount > 5, `${first.messageCount} messages`);
  });
});
