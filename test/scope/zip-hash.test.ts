import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { RaymondError, formatError } from '../../src/errors.js';
import { checkZipHash, hashInZipName, sha256Hex } from '../../src/scope/zip-hash.js';

const DATA = Buffer.from('some archive bytes');
const HASH = createHash('sha256').update(DATA).digest('hex');

describe('hashed zip names', () => {
  it('a name of 64 hex digits and .zip promises that hash, in lower case', () => {
    assert.equal(hashInZipName(`${HASH}.zip`), HASH);
    assert.equal(hashInZipName(`${HASH.toUpperCase()}.ZIP`), HASH);
  });

  it('any other name promises nothing', () => {
    for (const name of [
      'flow.zip',
      `${HASH.slice(1)}.zip`,
      `${HASH}0.zip`,
      `x${HASH}.zip`,
      `${HASH.slice(0, 63)}g.zip`,
      HASH,
      `${HASH}.zip.bak`,
    ]) {
      assert.equal(hashInZipName(name), undefined, name);
    }
  });

  it('matching bytes pass, whatever the case of the name', () => {
    assert.equal(sha256Hex(DATA), HASH);
    checkZipHash(`${HASH}.zip`, DATA, 'f.zip');
    checkZipHash(`${HASH.toUpperCase()}.zip`, DATA, 'f.zip');
  });

  it('other bytes are refused, naming the file, the expected and the actual hash', () => {
    const other = Buffer.from('some archive bytes!');
    assert.throws(
      () => checkZipHash(`${HASH}.zip`, other, 'dir/f.zip'),
      (err: unknown) => {
        assert.ok(err instanceof RaymondError);
        assert.equal(err.code, 'ERR_ZIP_INVALID');
        assert.equal(err.kind, 'invalid');
        assert.equal(
          formatError(err),
          `dir/f.zip: sha256 mismatch: the name says ${HASH} but the archive hashes to ${sha256Hex(other)}; refusing it`,
        );
        return true;
      },
    );
  });

  it('names that are no hash are not checked', () => {
    checkZipHash('flow.zip', Buffer.from('anything'), 'flow.zip');
  });
});
