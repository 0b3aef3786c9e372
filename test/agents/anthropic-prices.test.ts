import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PRICES_TAKEN, priceOf } from '../../src/agents/anthropic-prices.js';

describe('model prices', () => {
  it('prices the aliases as their family’s latest model', () => {
    assert.deepEqual(priceOf('sonnet').price, { input: 2, cacheRead: 0.1, output: 10 });
    assert.deepEqual(priceOf('opus').price, { input: 4, cacheRead: 0.2, output: 20 });
    assert.deepEqual(priceOf('haiku').price, { input: 0.1, cacheRead: 0.01, output: 0.5 });
  });

  it('prices full model ids by their family and generation, newest rows first', () => {
    assert.equal(priceOf('claude-sonnet-4-5-20250929').price.input, 3);
    assert.equal(priceOf('claude-sonnet-4-5-20250929').label, 'Claude Sonnet 3.5-4.6');
    assert.equal(priceOf('claude-sonnet-5').price.cacheRead, 0.2);
    assert.equal(priceOf('claude-sonnet-5-5').price.cacheRead, 0.1);
    assert.equal(priceOf('claude-opus-4-1-20250805').price.output, 75);
    assert.equal(priceOf('claude-opus-4-6[1m]').price.output, 25);
    assert.equal(priceOf('claude-opus-5').price.input, 5);
    assert.equal(priceOf('claude-opus-5-5').price.input, 4);
    assert.equal(priceOf('claude-haiku-4-5-20251001').price.input, 1);
    assert.equal(priceOf('claude-3-5-haiku-20241022').price.input, 0.8);
    assert.equal(priceOf('claude-3-haiku-20240307').price.output, 1.25);
    assert.equal(priceOf('claude-3-7-sonnet-latest').price.input, 3);
    for (const id of ['claude-opus-4-5', 'claude-sonnet-4-5', 'claude-haiku-4-5'])
      assert.equal(priceOf(id).unknown, false, id);
  });

  it('gives an unknown model, or a pi model that is no Claude, the default (Sonnet) price, marked', () => {
    const sonnet = priceOf('sonnet').price;
    for (const id of ['claude-poem-9', 'openai/gpt-5', 'gemini-3-pro']) {
      assert.deepEqual(priceOf(id).price, sonnet, id);
      assert.equal(priceOf(id).unknown, true, id);
      assert.match(priceOf(id).label, /\(default\)$/);
    }
  });

  it('prices a pi model naming a Claude model by the table, and no model at all as the default, unmarked', () => {
    assert.equal(priceOf('anthropic/claude-haiku-4-5').price.input, 1);
    assert.equal(priceOf('anthropic/claude-haiku-4-5').unknown, false);
    assert.deepEqual(priceOf(undefined), { ...priceOf('sonnet'), unknown: false });
  });

  it('says when the table was taken', () => {
    assert.match(PRICES_TAKEN, /^\d{4}-\d\d-\d\d$/);
  });
});
