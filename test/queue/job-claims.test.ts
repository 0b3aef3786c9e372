import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  claimJob,
  claimKey,
  finishClaim,
  finishedResult,
  redisNow,
  renewClaim,
} from '../../src/queue/job-claims.js';
import { NO_REDIS } from '../helpers/redis.js';
import { useRedisBlobs } from '../helpers/redis-blobs.js';

const ctx = useRedisBlobs();

describe('job claims (against a real redis-server)', () => {
  it('one worker at a time holds a (job, nonce); once done, nobody', async (t) => {
    if (!ctx.server) return t.skip(NO_REDIS);
    assert.deepEqual(await claimJob(ctx.redis, 'run.main.step.0', 'n1', 'w1', 60_000), {
      kind: 'mine',
    });
    const other = await claimJob(ctx.redis, 'run.main.step.0', 'n1', 'w2', 60_000);
    assert.equal(other.kind, 'running');
    assert.equal(other.kind === 'running' && other.by, 'w1');
    assert.ok(
      other.kind === 'running' && other.retryInMs > 50_000,
      'retry once the claim would lapse',
    );
    assert.deepEqual(
      await claimJob(ctx.redis, 'run.main.step.0', 'n2', 'w2', 60_000),
      { kind: 'mine' },
      'another nonce is another issue of the job',
    );
    await finishClaim(ctx.redis, 'run.main.step.0', 'n1');
    assert.deepEqual(await claimJob(ctx.redis, 'run.main.step.0', 'n1', 'w3', 60_000), {
      kind: 'done',
    });
    await renewClaim(ctx.redis, 'run.main.step.0', 'n1', 'w1', 60_000);
    assert.equal(
      await ctx.redis.get(claimKey('run.main.step.0', 'n1')),
      'done',
      'a heartbeat after the job finished leaves it done',
    );
    await renewClaim(ctx.redis, 'run.main.step.0', 'n2', 'w2', 90_000);
    assert.ok(
      (await ctx.redis.pttl(claimKey('run.main.step.0', 'n2'))) > 60_000,
      'its own running claim is extended',
    );
  });

  it('a finished job leaves its signed result for a copy of it to hand back (its lock lapsed while it ran); a failed one leaves none', async (t) => {
    if (!ctx.server) return t.skip(NO_REDIS);
    const signed = { payload: '{"for":"result"}', sig: 'abc' };
    await claimJob(ctx.redis, 'kept', 'n', 'w1', 60_000);
    assert.equal(await finishedResult(ctx.redis, 'kept', 'n'), undefined, 'not before it ends');
    await finishClaim(ctx.redis, 'kept', 'n', signed, 60_000);
    assert.deepEqual(await finishedResult(ctx.redis, 'kept', 'n'), signed);
    assert.equal((await claimJob(ctx.redis, 'kept', 'n', 'w2', 60_000)).kind, 'done');
    await finishClaim(ctx.redis, 'failed', 'n');
    assert.equal(await finishedResult(ctx.redis, 'failed', 'n'), undefined);
  });

  it("a dead worker's claim lapses: another worker takes the job then", async (t) => {
    if (!ctx.server) return t.skip(NO_REDIS);
    assert.deepEqual(await claimJob(ctx.redis, 'lapse', 'n', 'dead', 100), { kind: 'mine' });
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(await claimJob(ctx.redis, 'lapse', 'n', 'alive', 60_000), { kind: 'mine' });
  });

  it("reads Redis's clock", async (t) => {
    if (!ctx.server) return t.skip(NO_REDIS);
    assert.ok(Math.abs((await redisNow(ctx.redis)) - Date.now()) < 60_000);
  });
});
