import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';
import { raymond, summary, type CliResult } from '../../helpers/cli.js';
import { answerWorkers, fanOut } from '../../helpers/fan-out.js';
import { queueWorld, TEST_SECRET } from '../../helpers/queue-workers.js';
import { NO_REDIS } from '../../helpers/redis.js';

/** Checks that every one of `n` workers answered, once, and none paused. */
function allAnswered(r: CliResult, box: ClaudeSandbox, id: string, n: number): void {
  assert.equal(r.code, 0, r.stderr.slice(-3000));
  const s = summary(r);
  assert.equal(s.status, 'completed');
  const results = Object.entries(s.results).filter(([agent]) => agent !== 'main');
  assert.deepEqual(
    new Set(results.map(([, v]) => v)),
    new Set(Array.from({ length: n }, (_, i) => `worker ${i} done`)),
  );
  assert.doesNotMatch(r.stderr, /paused|usage limit/);
  assert.equal(box.server.served, n);
  assert.equal(box.state(id).agents.filter((a) => a.status === 'paused').length, 0);
}

const N = 40;
const PER_SECOND = 2;
const box = new ClaudeSandbox();
const world = queueWorld(box, (home) => box.env({ HOME: home }));

describe('--queue: workers share the account width through Redis (real claude, a rate-limited scripted API)', () => {
  it(`two workers, ${N} turns against ${PER_SECOND} requests a second: all finish, none paused, refusals bounded`, async (t) => {
    if (!world.redis) return t.skip(NO_REDIS);
    answerWorkers(box.server);
    box.server.limit(PER_SECOND);
    const ws = await Promise.all(
      ['a', 'b'].map((n) => world.workers.start(`width-${n}`, { concurrency: 20 })),
    );
    t.after(() => Promise.all(ws.map((w) => w.kill())));
    const started = Date.now();
    const wf = box.write(fanOut(N), 'qwide');
    const r = await raymond(
      [wf, '--queue', world.redis.url, '--json', '--workflow-id', 'qwide', '--max-parallel', '50'],
      { cwd: box.dir, env: box.env({ RAYMOND_QUEUE_SECRET: TEST_SECRET }), timeoutMs: 600_000 },
    );
    const { refused, served, peakInFlight } = box.server;
    t.diagnostic(
      `shared: ${((Date.now() - started) / 1000).toFixed(1)} s, ${refused} refused, ${served} served, at most ${peakInFlight} at once; ${r.stderr
        .match(/claude: (rate limited|API overloaded)[^\n]*/g)
        ?.slice(0, 6)
        .join(' | ')}`,
    );
    allAnswered(r, box, 'qwide', N);
    // A worker's narrowing reaches the coordinator's terminal.
    assert.match(r.stderr, /claude: rate limited: \d+ at once, was \d+/);
    // Measured: 5-10 refused with the shared width; 10-31 for two runs with a width each (below);
    // 80 refused for 57 served by workers with no width (before they shared one).
    assert.ok(refused <= 15, `${refused} refused for ${served} served`);
  });

  it(`for comparison: two runs of ${N / 2} turns, each with a width of its own, against the same limit`, async (t) => {
    const alone = new ClaudeSandbox();
    await alone.start();
    t.after(() => alone.stop());
    answerWorkers(alone.server);
    alone.server.limit(PER_SECOND);
    const started = Date.now();
    const runs = await Promise.all(
      ['one', 'two'].map((id) =>
        raymond(
          [alone.write(fanOut(N / 2), id), '--json', '--workflow-id', id, '--max-parallel', '50'],
          {
            cwd: alone.dir,
            env: alone.env(),
            timeoutMs: 600_000,
          },
        ),
      ),
    );
    const { refused, served } = alone.server;
    t.diagnostic(
      `independent: ${((Date.now() - started) / 1000).toFixed(1)} s, ${refused} refused, ${served} served`,
    );
    for (const r of runs) assert.equal(r.code, 0, r.stderr.slice(-3000));
    assert.equal(served, N);
  });
});
