import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sharedPace } from '../../src/queue/shared-pace.js';
import { NO_REDIS } from '../helpers/redis.js';
import { useRedisBlobs } from '../helpers/redis-blobs.js';

const ctx = useRedisBlobs();

describe('shared pace (against a real redis-server)', () => {
  it("gives the workers' gates of an account one pace: each slot a spacing after the last (no burst), past a hold", async (t) => {
    if (!ctx.server) return t.skip(NO_REDIS);
    const a = sharedPace(ctx.redis, 'raymond:width:claude:acct');
    const b = sharedPace(ctx.redis, 'raymond:width:claude:acct');
    // 2 a second: one each 500 ms, whichever worker asks.
    const waits = [await a.slot(2, 0), await b.slot(2, 0), await a.slot(2, 0), await b.slot(2, 0)];
    const near = (got: number, want: number) => Math.abs(got - want) <= 30;
    assert.ok(
      near(waits[0]!, 0) && near(waits[1]!, 500) && near(waits[2]!, 1000) && near(waits[3]!, 1500),
      waits.join(' '),
    );
    await b.hold(3000);
    const held = await a.slot(2, 0);
    assert.ok(near(held, 3000), `after a hold of 3 s: ${held}`);
    const other = await sharedPace(ctx.redis, 'raymond:width:claude:other').slot(2, 0);
    assert.ok(near(other, 0), 'another account has a pace of its own');
  });
});
