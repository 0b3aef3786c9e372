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
      // Locks of 5 s, not the helper's 1.5 s: under a loaded machine a lapsed claim runs a turn twice.
      ['a', 'b'].map((n) =>
        world.workers.start(`width-${n}`, {
          concurrency: 20,
          extraEnv: { RAYMOND_QUEUE_STALL_MS: '5000' },
        }),
      ),
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
        .match(/claude: (rate limited|API overloaded|paced)[^\n]*/g)
        ?.slice(0, 6)
        .join(' | ')}`,
    );
    allAnswered(r, box, 'qwide', N);
    // The gate's rate, told by a worker, reaches the coordinator's terminal.
    assert.match(r.stderr, /claude: paced at 120 requests a minute \(the API's limit\)/);
    // The workers' gates send at one pace (Redis). Measured: 0-2 refused; 5-10 with the shared
    // width alone (before the gates); 12-22 with a gate each not sharing its pace; 80 refused
    // for 57 served by workers with no width at all.
    assert.ok(refused <= 4, `${refused} refused for ${served} served (10% is 4)`);
  });

  it('a script step is not held up by turns that wait for the width: they wait in a queue of their own', async (t) => {
    if (!world.redis) return t.skip(NO_REDIS);
    const served: number[] = [];
    box.server.on(/^Turn (\d+)/, (r) => {
      served.push(Date.now());
      return { text: `<result>turn ${/^Turn (\d+)/.exec(r.prompt)![1]} done</result>` };
    });
    box.server.limit(1);
    // Four places on the one worker. Four scripts take them first (LATER.sh, 4 s), then each
    // goes on to a second script, queued behind the sixteen turns that wait for the width.
    const w = await world.workers.start('lanes', { concurrency: 4 });
    t.after(() => w.kill());
    const forks = [
      ...Array.from({ length: 16 }, (_, i) => `<fork n="${i}">TURN.md</fork>`),
      ...Array.from({ length: 4 }, (_, i) => `<fork n="${i}">LATER.sh</fork>`),
    ];
    const wf = box.write(
      {
        'START.sh': `#!/usr/bin/env bash\ncat <<'EOF'\n${forks.join('\n')}\n<goto>DONE.sh</goto>\nEOF\n`,
        'TURN.md': 'Turn {{n}}: say the word.',
        'LATER.sh': '#!/usr/bin/env bash\nsleep 4\necho "<goto>SCRIPT.sh</goto>"\n',
        'SCRIPT.sh': '#!/usr/bin/env bash\necho "<result>$(date +%s%3N)</result>"\n',
        'DONE.sh': '#!/usr/bin/env bash\necho "<result>all forked</result>"\n',
      },
      'qlanes',
    );
    const r = await raymond(
      [wf, '--queue', world.redis.url, '--json', '--workflow-id', 'qlanes', '--max-parallel', '50'],
      { cwd: box.dir, env: box.env({ RAYMOND_QUEUE_SECRET: TEST_SECRET }), timeoutMs: 600_000 },
    );
    assert.equal(r.code, 0, r.stderr.slice(-3000));
    const results = Object.values(summary(r).results);
    const scripts = results.filter((v) => /^\d{13}$/.test(v)).map(Number);
    assert.equal(scripts.length, 4, JSON.stringify(results));
    assert.equal(results.filter((v) => /^turn \d+ done$/.test(v)).length, 16);
    served.sort((a, b) => a - b);
    const lastScript = Math.max(...scripts);
    const before = served.filter((at) => at < lastScript).length;
    t.diagnostic(`the scripts ended after ${before} of 16 turns were served`);
    // In one queue (before), the scripts waited behind the twelve turns still queued, each
    // holding a place while it waited for the width: they ended after 12 or more turns.
    assert.ok(before <= 8, `the last script ended after ${before} of 16 turns`);
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
