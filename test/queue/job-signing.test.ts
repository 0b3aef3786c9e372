import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  loadQueueSecret,
  secretCheck,
  signedPayload,
  signJob,
  verifyJob,
} from '../../src/queue/job-signing.js';
import { Type } from '@sinclair/typebox';
import { RaymondError } from '../../src/errors.js';
import { checked } from '../../src/schema-problem.js';

/** Any JSON payload: these tests are about the signature. */
const ANY = checked(Type.Unknown());

const SECRET = 'a-secret-of-32-characters-length';
const root = mkdtempSync(join(tmpdir(), 'raymond-secret-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** The ERR_QUEUE_SECRET loadQueueSecret throws. */
function refused(file: string | undefined, env: NodeJS.ProcessEnv = {}): RaymondError {
  try {
    loadQueueSecret(file, env);
  } catch (err) {
    assert.ok(
      err instanceof RaymondError && err.code === 'ERR_QUEUE_SECRET',
      `not ERR_QUEUE_SECRET: ${String(err)}`,
    );
    return err;
  }
  assert.fail('accepted');
}

describe('secretCheck', () => {
  it('is the same for the same secret, differs for another, and shows nothing of the secret', () => {
    assert.equal(secretCheck(SECRET), secretCheck(SECRET));
    assert.notEqual(secretCheck(SECRET), secretCheck(`${SECRET}x`));
    assert.match(secretCheck(SECRET), /^[0-9a-f]{64}$/);
    assert.ok(!secretCheck(SECRET).includes(SECRET));
    assert.equal(
      verifyJob(
        SECRET,
        { payload: 'raymond queue secret check v1', sig: secretCheck(SECRET) },
        ANY,
      ),
      undefined,
      'not a signed job either',
    );
  });
});

describe('signJob / verifyJob', () => {
  const payload = { v: 1, kind: 'script', id: 'main.1', env: { A: 'b' }, list: [1, 'two', null] };

  it('gives back the payload of a job signed with the same secret', () => {
    const job = signJob(SECRET, payload);
    assert.equal(typeof job.payload, 'string');
    assert.match(job.sig, /^[0-9a-f]{64}$/);
    assert.deepEqual(verifyJob(SECRET, job, ANY), payload);
    assert.deepEqual(
      verifyJob(SECRET, JSON.parse(JSON.stringify(job)), ANY),
      payload,
      'after a trip through JSON',
    );
  });

  it('refuses a job signed with another secret', () => {
    assert.equal(verifyJob(SECRET, signJob(`${SECRET}x`, payload), ANY), undefined);
  });

  const good = signJob(SECRET, payload);
  const flipped = (good.sig[0] === '0' ? '1' : '0') + good.sig.slice(1);
  const forged: Array<[string, unknown]> = [
    ['an altered payload', { ...good, payload: good.payload.replace('main.1', 'main.2') }],
    ['a payload with a space added', { ...good, payload: `${good.payload} ` }],
    ['an altered sig', { ...good, sig: flipped }],
    ['a sig too short', { ...good, sig: good.sig.slice(0, 62) }],
    ['a sig too long', { ...good, sig: `${good.sig}00` }],
    ['a sig that is not hex', { ...good, sig: 'z'.repeat(64) }],
    ['an empty sig', { ...good, sig: '' }],
    ['no sig', { payload: good.payload }],
    ['no payload', { sig: good.sig }],
    ['a payload that is not text', { payload: payload, sig: good.sig }],
    ['a sig that is not text', { payload: good.payload, sig: Buffer.from(good.sig, 'hex') }],
    ['null', null],
    ['undefined', undefined],
    ['a string', JSON.stringify(good)],
    ['a number', 42],
  ];
  for (const [what, data] of forged) {
    it(`gives undefined for ${what}`, () => {
      assert.equal(verifyJob(SECRET, data, ANY), undefined);
    });
  }
});

describe('verifyJob: the payload schema', () => {
  const envelope = checked(Type.Object({ v: Type.Literal(2), id: Type.String() }));
  it('gives a rightly signed payload that fits the schema', () => {
    assert.deepEqual(
      verifyJob(SECRET, signJob(SECRET, { v: 2, id: 'main.1', extra: true }), envelope),
      { v: 2, id: 'main.1', extra: true },
    );
  });
  it('signedPayload gives a rightly signed payload whatever its shape, for the worker to say what is wrong with it', () => {
    assert.deepEqual(signedPayload(SECRET, signJob(SECRET, { v: 1 })), { payload: { v: 1 } });
    assert.equal(signedPayload(`${SECRET}x`, signJob(SECRET, { v: 1 })), undefined);
  });
  it('gives undefined for a rightly signed payload of another shape (a worker of another version)', () => {
    assert.equal(verifyJob(SECRET, signJob(SECRET, { v: 1, id: 'main.1' }), envelope), undefined);
    assert.equal(verifyJob(SECRET, signJob(SECRET, { v: 2, id: 7 }), envelope), undefined);
    assert.equal(verifyJob(SECRET, signJob(SECRET, [2, 'main.1']), envelope), undefined);
  });
});

describe('loadQueueSecret', () => {
  it('reads RAYMOND_QUEUE_SECRET from the env it is given, trimmed', () => {
    assert.equal(loadQueueSecret(undefined, { RAYMOND_QUEUE_SECRET: `  ${SECRET}\n` }), SECRET);
  });

  it('asks for a secret when there is none, or only blanks', () => {
    for (const env of [{}, { RAYMOND_QUEUE_SECRET: '' }, { RAYMOND_QUEUE_SECRET: '  \n ' }]) {
      const err = refused(undefined, env);
      assert.match(err.message, /RAYMOND_QUEUE_SECRET/);
      assert.equal(err.file, undefined);
    }
  });

  it('refuses a secret under 16 characters, and takes one of 16', () => {
    const err = refused(undefined, { RAYMOND_QUEUE_SECRET: ' 123456789012345 ' });
    assert.match(err.message, /15 characters long; at least 16/);
    assert.equal(err.file, undefined);
    assert.equal(
      loadQueueSecret(undefined, { RAYMOND_QUEUE_SECRET: '1234567890123456' }),
      '1234567890123456',
    );
  });

  it('reads a secret file, trimmed, in preference to the env', () => {
    const file = join(root, 'secret');
    writeFileSync(file, `${SECRET}\n`);
    assert.equal(
      loadQueueSecret(file, { RAYMOND_QUEUE_SECRET: 'another-secret-from-the-env' }),
      SECRET,
    );
  });

  it('refuses a short secret file, naming it', () => {
    const file = join(root, 'short');
    writeFileSync(file, 'short\n');
    const err = refused(file, { RAYMOND_QUEUE_SECRET: SECRET });
    assert.match(err.message, /5 characters long/);
    assert.equal(err.file, file);
  });

  it('refuses a secret file it cannot read, naming it', () => {
    const cases = [join(root, 'missing'), root];
    if (process.getuid?.() !== 0) {
      const locked = join(root, 'locked');
      writeFileSync(locked, SECRET);
      chmodSync(locked, 0o000);
      cases.push(locked);
    }
    for (const file of cases) {
      const err = refused(file, { RAYMOND_QUEUE_SECRET: SECRET });
      assert.match(err.message, /^cannot read the queue secret: /);
      assert.equal(err.file, file);
    }
  });
});
