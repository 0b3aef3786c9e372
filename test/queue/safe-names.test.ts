import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RaymondError } from '../../src/errors.js';
import { isSafeSegment, safeSegment } from '../../src/queue/safe-names.js';

describe('isSafeSegment', () => {
  it('takes session ids and pi transcript names', () => {
    for (const ok of [
      '8c1f3c2e-5b7a-4d1e-9f00-0123456789ab',
      '2026-11-25T19-19-46-123Z_8c1f3c2e.jsonl',
      'abc',
      '_x',
      'a..b',
    ])
      assert.equal(isSafeSegment(ok), true, ok);
  });

  it('refuses anything that could leave a folder, or is no name at all', () => {
    const bad: unknown[] = [
      '',
      '.',
      '..',
      '../../../../home/someone/ESCAPED',
      'a/b',
      'a\\b',
      '/abs',
      '.hidden',
      'a\0b',
      'x'.repeat(201),
      ' a',
      42,
      null,
      undefined,
      {},
    ];
    for (const b of bad) assert.equal(isSafeSegment(b), false, JSON.stringify(b));
  });
});

describe('safeSegment', () => {
  it('hands back a safe name, and refuses another in one line naming what it was for', () => {
    assert.equal(safeSegment('abc-1', 'a session id'), 'abc-1');
    try {
      safeSegment(
        `../../../../home/someone/ESCAPED${'x'.repeat(200)}`,
        "a worker's session id",
        'wf/START.md',
      );
      assert.fail('accepted');
    } catch (err) {
      assert.ok(err instanceof RaymondError);
      assert.equal(err.code, 'ERR_QUEUE_REFUSED');
      assert.equal(err.file, 'wf/START.md');
      assert.match(
        err.message,
        /^a worker's session id "\.\.\/\.\.\/\.\.\/\.\.\/home\/someone\/ESCAPEDx+\.\.\." is not a plain file name .*: refused$/,
      );
    }
  });
});
