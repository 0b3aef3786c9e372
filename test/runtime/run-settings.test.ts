import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resumeQueue } from '../../src/runtime/run-settings.js';

describe('resumeQueue', () => {
  const own = { url: 'redis://10.0.0.1:6379', pushRemote: 'origin' };

  it('keeps the run\'s own queue when nothing is given again', () => {
    assert.deepEqual(resumeQueue(own, undefined), own);
    assert.equal(resumeQueue(undefined, undefined), undefined);
  });

  it('applies a secret file or push remote given alone to the run\'s own URL', () => {
    assert.deepEqual(resumeQueue(own, { secretFile: '/s/secret' }), { ...own, secretFile: '/s/secret' });
    assert.deepEqual(resumeQueue(own, { pushRemote: 'backup' }), { url: own.url, pushRemote: 'backup' });
  });

  it('takes a URL given again, with its companions', () => {
    assert.deepEqual(resumeQueue(own, { url: 'redis://10.0.0.2:6379', secretFile: 'f' }), { url: 'redis://10.0.0.2:6379', secretFile: 'f', pushRemote: 'origin' });
  });

  it('gives a run on one machine no queue for companions alone', () => {
    assert.equal(resumeQueue(undefined, { secretFile: '/s/secret' }), undefined);
  });
});
