import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CODEX_PRICES_TAKEN,
  codexCost,
  codexPriceOf,
} from '../../../src/agents/codex/codex-prices.js';

describe('codex prices', () => {
  it('prices OpenAI models by their row, USD per million tokens', () => {
    assert.deepEqual(codexPriceOf('gpt-5').price, { input: 1.25, cacheRead: 0.125, output: 10 });
    assert.deepEqual(codexPriceOf('gpt-5-mini').price, {
      input: 0.25,
      cacheRead: 0.025,
      output: 2,
    });
    assert.deepEqual(codexPriceOf('gpt-5.2-codex').price, {
      input: 1.75,
      cacheRead: 0.175,
      output: 14,
    });
    assert.deepEqual(codexPriceOf('gpt-6.2-sol').price, { input: 2, cacheRead: 0.1, output: 10 });
    assert.deepEqual(codexPriceOf('o4-mini').price, { input: 1.1, cacheRead: 0.275, output: 4.4 });
    assert.equal(codexPriceOf('gpt-6.2-astra').price.output, 40);
    assert.equal(codexPriceOf('gpt-5.1-codex-max').price.input, 1.25);
    assert.equal(codexPriceOf('gpt-5.1-codex-mini').price.output, 2);
    assert.equal(codexPriceOf('codex-mini-latest').price.cacheRead, 0.375);
    assert.equal(codexPriceOf('gpt-4.1-nano').price.input, 0.1);
    assert.equal(codexPriceOf('gpt-6.2-sol').label, 'GPT-6.2 Sol');
    const rows = ['gpt-5-codex', 'gpt-5-nano', 'gpt-5.1', 'gpt-5.1-codex', 'gpt-5.2', 'o3'];
    for (const id of [...rows, 'gpt-5.3-codex', 'gpt-5.5', 'gpt-6-luna', 'gpt-4.1', 'gpt-4.1-mini'])
      assert.equal(codexPriceOf(id).unknown, false, id);
  });

  it('matches an id with a provider prefix or a dated snapshot suffix as its model', () => {
    const gpt5 = codexPriceOf('gpt-5');
    for (const id of ['openai/gpt-5', 'gpt-5-2025-08-07', 'OpenAI/GPT-5-2025-08-07'])
      assert.deepEqual(codexPriceOf(id), gpt5, id);
    assert.equal(codexPriceOf('openrouter/openai/gpt-5.1-codex-mini-20251113').price.input, 0.25);
    assert.deepEqual(codexPriceOf('gpt-5.6'), codexPriceOf('gpt-5.6-sol'), 'OpenAI’s alias');
  });

  it('prices no model as Codex’s default model (GPT-6.2 Sol in Codex 0.171)', () => {
    assert.deepEqual(codexPriceOf(undefined), codexPriceOf('gpt-6.2-sol'));
    assert.equal(codexPriceOf(undefined).unknown, false);
  });

  it('lets the config’s price win over the table, by exact id and by table id', () => {
    const overrides = { 'gpt-5': { input: 3, cached_input: 0.3, output: 30 } };
    assert.deepEqual(codexPriceOf('gpt-5', overrides), {
      label: 'gpt-5 (config price)',
      price: { input: 3, cacheRead: 0.3, output: 30 },
      unknown: false,
    });
    assert.equal(codexPriceOf('openai/gpt-5', overrides).price.input, 3);
    assert.equal(codexPriceOf('gpt-5-mini', overrides).price.input, 0.25, 'only its own model');
    // A model the table does not know, priced by the config; no cached price means no discount.
    const mine = codexPriceOf('my-finetune', { 'my-finetune': { input: 2, output: 8 } });
    assert.deepEqual(mine.price, { input: 2, cacheRead: 2, output: 8 });
    assert.equal(mine.unknown, false);
    const sol = { 'gpt-6.2-sol': { input: 1, output: 1 } };
    assert.equal(codexPriceOf(undefined, sol).price.input, 1, 'the default model’s override');
    assert.equal(codexPriceOf('toString', {}).unknown, true, 'no inherited keys');
  });

  it('gives a model in neither a zero price, marked unknown, never another model’s price', () => {
    for (const id of ['gpt-7', 'gpt-5-pro', 'gpt-6.2-sol-fast', 'claude-sonnet-5', 'o3-pro']) {
      const priced = codexPriceOf(id);
      assert.deepEqual(priced, {
        label: `${id} (no price)`,
        price: { input: 0, cacheRead: 0, output: 0 },
        unknown: true,
      });
      assert.equal(
        codexCost({ input_tokens: 1e6, cached_input_tokens: 0, output_tokens: 1e6 }, priced),
        0,
      );
    }
  });

  it('charges fresh input, cached input and output (reasoning inside output) at their prices', () => {
    const sol = codexPriceOf('gpt-6.2-sol');
    // 800,000 fresh × $2 + 200,000 cached × $0.10 + 50,000 output × $10, per million.
    const usage = { input_tokens: 1_000_000, cached_input_tokens: 200_000, output_tokens: 50_000 };
    assert.equal(codexCost(usage, sol), 2.12);
    assert.equal(
      codexCost(
        { input_tokens: 31_170, cached_input_tokens: 0, output_tokens: 20 },
        codexPriceOf('gpt-5'),
      ),
      (31_170 * 1.25 + 20 * 10) / 1e6,
    );
    assert.equal(codexCost({ input_tokens: 0, cached_input_tokens: 0, output_tokens: 0 }, sol), 0);
  });

  it('says when the table was taken', () => {
    assert.match(CODEX_PRICES_TAKEN, /^\d{4}-\d\d-\d\d$/);
  });
});
