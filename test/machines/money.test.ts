import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { usd } from '../../machines/money.js';

describe('usd', () => {
  it('never rounds a cost above zero to zero, and shows four figures below a dollar', () => {
    assert.equal(usd(0.0001), '$0.0001');
    assert.equal(usd(0.00012346), '$0.0001235');
    assert.equal(usd(1e-9), '$0.000000001');
    assert.equal(usd(0.1234567), '$0.1235');
    assert.equal(usd(0.0123), '$0.0123');
  });

  it('shows cents at least, whole dollars from $1,000, and $0.00 only for nothing', () => {
    assert.equal(usd(0), '$0.00');
    assert.equal(usd(0.1), '$0.10');
    assert.equal(usd(0.5), '$0.50');
    assert.equal(usd(1), '$1.00');
    assert.equal(usd(12.3456), '$12.35');
    assert.equal(usd(123.456), '$123.46');
    assert.equal(usd(1234.5678), '$1235');
    assert.equal(usd(-0.5), '-$0.50');
  });
});
