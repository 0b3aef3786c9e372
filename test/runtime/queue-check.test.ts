import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { RaymondError } from '../../src/errors.js';
import { checkQueue } from '../../src/runtime/queue-check.js';

// openQueue connects to Redis: the queue's e2e tests (test/e2e/queue*.test.ts) run it against a real server.
describe('checkQueue', () => {
  const dir = mkdtempSync(join(tmpdir(), 'raymond-queue-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const secret = join(dir, 'secret');
  writeFileSync(secret, 'x'.repeat(64));
  const short = join(dir, 'short');
  writeFileSync(short, 'abc');
  const code = (c: string) => (err: unknown) => err instanceof RaymondError && err.code === c;

  it('accepts a Redis URL with a readable secret long enough', () => {
    assert.doesNotThrow(() =>
      checkQueue({ url: 'redis://127.0.0.1:6379', secretFile: secret, pushRemote: 'origin' }),
    );
  });

  it("refuses, before anything is written, a URL that is not Redis's and a secret that cannot be used", () => {
    assert.throws(
      () => checkQueue({ url: 'http://127.0.0.1:6379', secretFile: secret, pushRemote: 'origin' }),
      code('ERR_USAGE'),
    );
    assert.throws(
      () => checkQueue({ url: 'not a url', secretFile: secret, pushRemote: 'origin' }),
      code('ERR_USAGE'),
    );
    assert.throws(
      () =>
        checkQueue({
          url: 'redis://127.0.0.1:6379',
          secretFile: join(dir, 'missing'),
          pushRemote: 'origin',
        }),
      code('ERR_QUEUE_SECRET'),
    );
    assert.throws(
      () => checkQueue({ url: 'redis://127.0.0.1:6379', secretFile: short, pushRemote: 'origin' }),
      code('ERR_QUEUE_SECRET'),
    );
  });
});
