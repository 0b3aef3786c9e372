import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { p50p90, percentile } from '../../src/history/percentiles.js';

describe('percentile (nearest rank)', () => {
  const ten = [10, 1, 9, 2, 8, 3, 7, 4, 6, 5];

  it('gives a value that occurred, by nearest rank, on an unsorted copy', () => {
    assert.equal(percentile(ten, 50), 5);
    assert.equal(percentile(ten, 90), 9);
    assert.equal(percentile(ten, 91), 10);
    assert.equal(percentile(ten, 100), 10);
    assert.equal(percentile(ten, 0), 1);
    assert.deepEqual(ten.slice(0, 3), [10, 1, 9], 'the input is not sorted in place');
  });

  it('of three runs is one of their figures, never an interpolation', () => {
    assert.equal(percentile([0.3, 0.1, 0.2], 50), 0.2);
    assert.equal(percentile([0.3, 0.1, 0.2], 90), 0.3);
    assert.equal(percentile([0.1, 0.2], 50), 0.1);
  });

  it('clamps p to 0..100 and has nothing for no values', () => {
    assert.equal(percentile([1, 2, 3], 150), 3);
    assert.equal(percentile([1, 2, 3], -5), 1);
    assert.equal(percentile([], 50), undefined);
    assert.equal(p50p90([]), undefined);
  });

  it('p50p90 agrees with percentile', () => {
    for (const values of [ten, [4], [2, 1], [0.5, 0.25, 0.125, 1, 2, 3, 7]])
      assert.deepEqual(p50p90(values), {
        p50: percentile(values, 50),
        p90: percentile(values, 90),
      });
  });
});
