import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ENV_LIMITS, valuesForFiles } from '../../src/executors/env-limits.js';

describe('which values go to files', () => {
  it('keeps every value whose NAME=value and NUL fit in one variable; sends the first byte over to a file', () => {
    const fits = 'x'.repeat(ENV_LIMITS.entryBytes - 'A='.length - 1);
    assert.deepEqual([...valuesForFiles({ A: fits, B: 'small', C: undefined })], []);
    assert.deepEqual([...valuesForFiles({ A: `${fits}x`, B: 'small' })], ['A']);
  });

  it('counts bytes, not characters', () => {
    const limits = { entryBytes: 100, totalBytes: 1000 };
    assert.deepEqual([...valuesForFiles({ A: 'é'.repeat(40) }, limits)], [], '80 bytes');
    assert.deepEqual([...valuesForFiles({ A: 'é'.repeat(50) }, limits)], ['A'], '100 bytes, plus A= and NUL');
  });

  it('sends a value holding a NUL character to a file, whatever its size', () => {
    assert.deepEqual([...valuesForFiles({ A: 'a\0b', B: 'ab' })], ['A']);
  });

  it('when the values together are over the total, moves the largest to files until the rest fit', () => {
    const limits = { entryBytes: 100, totalBytes: 200 };
    const env = { S: 'x'.repeat(10), M: 'x'.repeat(60), L: 'x'.repeat(90), L2: 'x'.repeat(80) };
    // 13 + 63 + 93 + 84 = 253: moving L (93) leaves 160.
    assert.deepEqual([...valuesForFiles(env, limits)], ['L']);
  });
});
