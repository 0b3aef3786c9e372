import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RaymondError } from '../errors.js';

/** SHA-256 of some bytes, in hex: a blob's name. */
export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * Content-addressed blobs in Redis: workflow files and session transcripts
 * travel this way. A blob's key is its hash, so a worker checks what it got
 * against the hash the signed job names, and a blob is stored once however
 * many jobs name it.
 */
export class BlobStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(sha: string): string {
    return `${this.prefix}:blob:${sha}`;
  }

  /** Stores bytes (unless Redis has them) and returns their hash. */
  async put(data: Buffer): Promise<string> {
    const sha = sha256(data);
    await this.redis.set(this.key(sha), data, 'NX');
    return sha;
  }

  /** How many of these blobs Redis does not have (it lost them in a restart without persistence): one round trip. */
  async missing(shas: readonly string[]): Promise<number> {
    if (shas.length === 0) return 0;
    return shas.length - (await this.redis.exists(...shas.map((s) => this.key(s))));
  }

  /** A blob's bytes, checked against its hash. */
  async get(sha: string): Promise<Buffer> {
    const data = await this.redis.getBuffer(this.key(sha));
    if (!data)
      throw new RaymondError(
        'ERR_QUEUE',
        `the queue has no file with hash ${sha.slice(0, 12)} (Redis restarted?)`,
      );
    if (sha256(data) !== sha)
      throw new RaymondError(
        'ERR_QUEUE_REFUSED',
        `a file in the queue does not match its hash ${sha.slice(0, 12)}: refused`,
      );
    return data;
  }
}
