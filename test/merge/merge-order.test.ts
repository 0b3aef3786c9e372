import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergeOrder } from '../../src/merge/merge-order.js';

describe('mergeOrder', () => {
  it('keeps fork order when no two branches share a file', () => {
    assert.deepEqual(
      mergeOrder([
        { agent: 'a', files: ['1'] },
        { agent: 'b', files: ['2'] },
        { agent: 'c', files: ['3'] },
      ]),
      ['a', 'b', 'c'],
    );
  });

  it('puts a branch sharing no file with the previous one between two that touch the same file', () => {
    const order = mergeOrder([
      { agent: 'a', files: ['x.ts', 'y.ts'] },
      { agent: 'b', files: ['x.ts'] },
      { agent: 'c', files: ['z.ts'] },
      { agent: 'd', files: ['y.ts'] },
    ]);
    assert.deepEqual(order, ['a', 'c', 'b', 'd']);
  });

  it('takes the first left when every branch left shares a file with the previous one', () => {
    assert.deepEqual(
      mergeOrder([
        { agent: 'a', files: ['x'] },
        { agent: 'b', files: ['x'] },
        { agent: 'c', files: ['x', 'y'] },
      ]),
      ['a', 'b', 'c'],
    );
  });

  it('orders nothing as nothing, and a branch without files anywhere', () => {
    assert.deepEqual(mergeOrder([]), []);
    assert.deepEqual(
      mergeOrder([
        { agent: 'a', files: ['x'] },
        { agent: 'b', files: ['x'] },
        { agent: 'c', files: [] },
      ]),
      ['a', 'c', 'b'],
    );
  });
});
