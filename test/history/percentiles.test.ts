import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { p50p90 } from '../../src/history/percentiles.js';

describe('p50p90 (nearest rank)', () => {
  const ten = [10, 1, 9, 2, 8, 3, 7, 4, 6, 5];

  it('gives values that occurred, by nearest rank, on an unsorted copy', () => {
    assert.deepEqual(p50p90(ten), { p50: 5, p90: 9 });
    assert.deepEqual(ten.slice(0, 3), [10, 1, 9], 'the input is not sorted in place');
  });

  it('of three runs gives their figures, never an interpolation', () => {
    assert.deepEqual(p50p90([0.3, 0.1, 0.2]), { p50: 0.2, p90: 0.3 });
    assert.deepEqual(p50p90([0.1, 0.2]), { p50: 0.1, p90: 0.2 });
    assert.deepEqual(p50p90([4]), { p50: 4, p90: 4 });
  });

  it('has nothing for no values', () => {
    assert.equal(p50p90([]), undefined);
  });
});
