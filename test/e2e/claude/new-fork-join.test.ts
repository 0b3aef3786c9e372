import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { summary } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

describe('raymond new: the fork-join scaffold against the scripted API', () => {
  it('START forks one worker per part, COLLECT gets their results in fork order and answers', async () => {
    const made = await box.run(['new', 'compare']);
    assert.equal(made.code, 0, made.stderr);
    const s = box.server;
    s.on('Split this task into two to five parts', (r) => {
      assert.match(r.prompt, /compare two caches/);
      return {
        text: '<fork part="redis">WORKER.md</fork>\n<fork part="memcached">WORKER.md</fork>\n<join>COLLECT.md</join>',
      };
    });
    s.on('Your part of a larger task', (r) => ({
      text: `<result>${/larger task: (\w+)/.exec(r.prompt)![1]} looked at</result>`,
    }));
    s.on('Your workers have ended', (r) => {
      const results = JSON.parse(/\n\n(\[.*\])\n\n/s.exec(r.prompt)![1]!) as {
        attributes: { part: string };
        status: string;
        result: string;
      }[];
      return {
        text: `<result>${results.map((w) => `${w.attributes.part}=${w.status}: ${w.result}`).join('; ')}</result>`,
      };
    });
    const r = await box.run(['compare', '--json', '--input', 'compare two caches']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(summary(r).results, {
      main: 'redis=completed: redis looked at; memcached=completed: memcached looked at',
      main_worker1: 'redis looked at',
      main_worker2: 'memcached looked at',
    });
    assert.match(
      s.requestsFor('Your workers have ended')[0]!.transcript,
      /Split this task/,
      "COLLECT goes on in START's session",
    );
  });
});
