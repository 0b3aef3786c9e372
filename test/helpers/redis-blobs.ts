import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { Redis } from 'ioredis';
import { RaymondError } from '../../src/errors.js';
import { BlobStore } from '../../src/queue/blob-store.js';
import { KEY_PREFIX } from '../../src/queue/step-job.js';
import { startRedis, type RedisServer } from './redis.js';

/** A test file's Redis and the blob store on it: started before its tests, gone after; `server` is undefined without redis-server. */
export interface RedisBlobs {
  server: RedisServer | undefined;
  redis: Redis;
  blobs: BlobStore;
}

/** Registers the hooks that start and stop a test file's Redis, and returns what they fill in. */
export function useRedisBlobs(): RedisBlobs {
  const fixture = { server: undefined } as RedisBlobs;
  before(async () => {
    fixture.server = await startRedis();
    if (!fixture.server) return;
    fixture.redis = new Redis(fixture.server.url, { maxRetriesPerRequest: null });
    fixture.blobs = new BlobStore(fixture.redis, KEY_PREFIX);
  });
  after(async () => {
    fixture.redis?.disconnect();
    await fixture.server?.stop();
  });
  return fixture;
}

/** The RaymondError a promise rejects with (the test fails if it resolves, or rejects with anything else). */
export async function rejection(p: Promise<unknown>): Promise<RaymondError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof RaymondError, `not a RaymondError: ${String(err)}`);
    return err;
  }
  assert.fail('resolved');
}
