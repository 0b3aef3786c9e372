import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JoinEntry } from '../../machines/types.js';
import { Sandbox, sh, summary } from '../helpers/cli.js';
import { QueueWorkers, TEST_SECRET } from '../helpers/queue-workers.js';
import { NO_REDIS, startRedis, type RedisServer } from '../helpers/redis.js';

const box = new Sandbox();
let redis: RedisServer | undefined;
let workers: QueueWorkers;

before(async () => {
  redis = await startRedis();
  if (redis) workers = new QueueWorkers(redis.url, box.dir);
});
after(async () => {
  await workers?.stopAll();
  await redis?.stop();
  box.remove();
});

describe('<join> under --queue', () => {
  it('a local parent joins workers that ran on two worker processes, a failed one included', async (t) => {
    if (!redis) return t.skip(NO_REDIS);
    const ws = await Promise.all(['a', 'b'].map((n) => workers.start(`join-${n}`)));
    const wf = box.write(
      {
        'START.sh': sh(
          'for i in 1 2 3 4 5 6; do echo "<fork item=\\"$i\\">W.sh</fork>"; done',
          'echo "<join>COLLECT.sh</join>"',
        ),
        'W.sh': sh(
          'sleep 0.2',
          '[ "$item" = 4 ] && exit 9',
          'echo "<result>$item on $(basename "$HOME")</result>"',
        ),
        'COLLECT.sh': sh('printf "<result>%s</result>" "$RAYMOND_INPUT"'),
      },
      'qjoin',
    );
    const r = await box.run([wf, '--queue', redis.url, '--json', '--workflow-id', 'qjoin'], {
      RAYMOND_QUEUE_SECRET: TEST_SECRET,
    });
    assert.equal(r.code, 0, r.stderr);
    const got = JSON.parse(summary(r).results.main!) as JoinEntry[];
    assert.deepEqual(
      got.map((e) => [e.attributes.item, e.status]),
      [
        ['1', 'completed'],
        ['2', 'completed'],
        ['3', 'completed'],
        ['4', 'failed'],
        ['5', 'completed'],
        ['6', 'completed'],
      ],
    );
    assert.match(got[3]!.error!, /exited with code 9/);
    const hosts = new Set(got.filter((e) => e.result).map((e) => e.result!.split(' on ')[1]));
    assert.equal(hosts.size, 2, `both workers ran some: ${[...hosts].join(', ')}`);
    await Promise.all(ws.map((w) => w.kill()));
  });
});
