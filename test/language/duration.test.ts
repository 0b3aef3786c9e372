import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDuration } from '../../src/language/duration.js';

describe('parseDuration', () => {
  it("reads ray's durations, days too, in sequence", () => {
    const ms = (t: string) => parseDuration(t, 'timeout', 'S.md');
    assert.equal(ms('36500d'), 36_500 * 86_400_000);
    assert.deepEqual(
      ['90s', '15m', '24h', '2d', '1h30m', '500ms', '1.5h'].map(ms),
      [90_000, 900_000, 86_400_000, 172_800_000, 5_400_000, 500, 5_400_000],
    );
  });

  it('refuses anything else in one line naming the attribute', () => {
    for (const bad of [
      '',
      'soon',
      '10',
      'h',
      '5x',
      '0s',
      '1h 30m',
      '-5m',
      '300000000d',
      '36501d',
      '1e400d',
      `${'9'.repeat(400)}s`,
    ]) {
      assert.throws(
        () => parseDuration(bad, '<ask> timeout', 'S.md'),
        (err: Error & { code?: string; file?: string }) =>
          err.code === 'ERR_TAG_PARSE' &&
          err.file === 'S.md' &&
          err.message.startsWith(`<ask> timeout="${bad}"`),
        bad,
      );
    }
  });
});
