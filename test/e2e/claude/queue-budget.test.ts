import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  cappedWorker,
  longTurn,
  priceMessage,
  resumedToEnd,
  stoppedAtBudget,
  streamedUsd,
  type HardBox,
} from '../../helpers/budget-hard.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';
import { joinedEntries, raymond, summary } from '../../helpers/cli.js';
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

/** Starts a worker of its own for test `t` (killed after it): runs of the CLI through it, its turns' tools allowed. */
async function oneWorker(
  t: { after(fn: () => Promise<void>): void },
  name: string,
  url: string,
): Promise<HardBox> {
  const w = await world.workers.start(name, { concurrency: 2 });
  t.after(() => w.kill());
  const env = box.env({ RAYMOND_QUEUE_SECRET: TEST_SECRET });
  const queued = ['--queue', url, '--dangerously-skip-permissions'];
  return {
    run: (args) => raymond([...args, ...queued], { cwd: box.dir, env, timeoutMs: 300_000 }),
    state: (id) => box.state(id),
  };
}

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

describe("--queue --budget-hard: the coordinator stops a worker's turn at the budget (real claude)", () => {
  it('a long turn on a worker is stopped mid-stream, its agent paused; --resume with a larger budget finishes it', async (t) => {
    if (!world.redis) return t.skip(NO_REDIS);
    // Each tool call takes 3 s: the worker reads the coordinator's cancel flag with its heartbeat (each second),
    // so the turn is killed before it asks for its next message.
    box.server.on(
      'QHARD-LONG',
      longTurn(() => 'long done', 3),
    );
    const message = await priceMessage(box, 'qhard-probe');
    const budget = 3.5 * message;
    const onQueue = await oneWorker(t, 'hard', world.redis.url);
    const served = box.server.served;
    const wf = box.write({ 'START.md': 'QHARD-LONG' }, 'qhard');
    const { out } = await stoppedAtBudget(onQueue, wf, 'qhard', budget);
    const messages = box.server.served - served;
    t.diagnostic(`stopped after ${messages} messages: ${out.total_cost_usd} for ${budget}`);
    assert.equal(messages, 4, 'stopped at the message that took the run to the budget');
    // A stopped turn is charged its streamed usage (never $0): its messages' input, priced by the table.
    const model = box.server.requests.at(-1)!.model;
    const streamed = streamedUsd(model, 4);
    assert.ok(
      Math.abs(out.total_cost_usd - streamed) < 1e-9,
      `${out.total_cost_usd}: 4 messages streamed, ${streamed} (${model})`,
    );
    assert.ok(out.total_cost_usd <= budget + message + 1e-9, `${out.total_cost_usd}`);
    const main = box.state('qhard').agents[0]!;
    assert.equal(main.session, main.next_session, 'the agent keeps the session its turn ran in');

    const before = box.server.requests.length;
    await resumedToEnd(onQueue, 'qhard', 30 * message);
    // The worker got the stopped session's transcript: the resumed turn's first request carries its tool calls.
    const first = box.server.requests.slice(before).find((q) => q.main)!;
    assert.ok(first.messageCount > 5, `${first.messageCount} messages`);
  });
});

describe("--queue: a state's budget: holds inside a worker's turn (real claude)", () => {
  it("the forked worker's long turn is stopped at its state's budget: and fails alone; the parent completes", async (t) => {
    if (!world.redis) return t.skip(NO_REDIS);
    box.server.on(
      'QVISIT-LONG',
      longTurn(() => 'long done', 3),
    );
    const message = await priceMessage(box, 'qvisit-probe');
    const cap = 2.5 * message;
    const wf = box.write(cappedWorker('QVISIT-LONG: work until done.', cap), 'qvisit');
    const onQueue = await oneWorker(t, 'visit', world.redis.url);
    const served = box.server.served;
    const [entry] = joinedEntries(await onQueue.run([wf, '--json', '--workflow-id', 'qvisit']));
    assert.equal(entry!.status, 'failed', JSON.stringify(entry));
    assert.match(entry!.error!, /budget: this state's budget of \$[\d.]+ a visit is spent/);
    // The third message reaches the cap; the worker kills the turn during its 3 s tool call.
    assert.equal(box.server.served - served, 3, 'stopped at the message that reached the cap');
    assert.ok(entry!.cost_usd <= cap + message + 1e-9, `${entry!.cost_usd} for a cap of ${cap}`);
  });
});
