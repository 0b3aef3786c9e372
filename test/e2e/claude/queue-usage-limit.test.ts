import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';
import { raymond, summary } from '../../helpers/cli.js';
import { answerWorkers, fanOut } from '../../helpers/fan-out.js';
import { queueWorld, TEST_SECRET } from '../../helpers/queue-workers.js';
import { NO_REDIS } from '../../helpers/redis.js';

const box = new ClaudeSandbox();
// A claude.ai login, not an API key: Claude Code reads the usage limit's headers only then.
const login = { ANTHROPIC_API_KEY: '', CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-test' };
const world = queueWorld(box, (home) => box.env({ HOME: home, ...login }));

describe('--queue: a usage limit parks every worker, and the run goes on after the reset (real claude)', () => {
  it('20 workers, the usage spent after 6: the run waits for the reset, then every worker answers once', async (t) => {
    if (!world.redis) return t.skip(NO_REDIS);
    answerWorkers(box.server);
    box.server.spendAfter(6, 8_000);
    const w = await world.workers.start('spent-a', { concurrency: 8 });
    t.after(() => w.kill());
    const wf = box.write(fanOut(20), 'qspent');
    const r = await raymond([wf, '--queue', world.redis.url, '--json', '--workflow-id', 'qspent'], {
      cwd: box.dir,
      env: box.env({ RAYMOND_QUEUE_SECRET: TEST_SECRET, ...login }),
      timeoutMs: 300_000,
    });
    t.diagnostic(`${box.server.usageRefused} refused while spent, ${box.server.served} served`);
    assert.equal(r.code, 0, r.stderr.slice(-3000));
    assert.match(r.stderr, /every live agent hit a usage limit; waiting until/);
    const results = Object.entries(summary(r).results).filter(([id]) => id !== 'main');
    assert.equal(results.length, 20);
    assert.equal(box.server.served, 20, 'each worker answered once: no finished turn ran again');
  });
});
