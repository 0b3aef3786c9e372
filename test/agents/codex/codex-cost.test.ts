import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NO_USAGE, turnSpend } from '../../../src/agents/codex/codex-cost.js';
import type { CodexUsage } from '../../../src/agents/codex/codex-stream.js';
import type { PricedModel } from '../../../src/agents/model-price.js';

// Prices in USD per million tokens; a million input tokens make the sums easy to read.
const priced: PricedModel = {
  label: 'test',
  price: { input: 2, cacheRead: 0.5, output: 10 },
  unknown: false,
};
const unpriced: PricedModel = { ...priced, unknown: true };
const usage = (input: number, cached: number, output: number): CodexUsage => ({
  input_tokens: input,
  cached_input_tokens: cached,
  output_tokens: output,
  reasoning_output_tokens: 0,
});
const close = (a: number, b: number) => Math.abs(a - b) < 1e-9;

describe('turnSpend', () => {
  it('charges a fresh thread its whole usage: fresh input, cached input and output at their prices', () => {
    const s = turnSpend(NO_USAGE, usage(1_000_000, 400_000, 100_000), priced, undefined);
    assert.ok(close(s.costUsd, 0.6 * 2 + 0.4 * 0.5 + 0.1 * 10));
    assert.ok(close(s.sessionTotal!, s.costUsd));
    assert.equal(s.tokens, 1_100_000);
  });

  it("charges a resumed or forked thread's turn its own tokens only: the end less the thread's usage before it", () => {
    const start = usage(1_000_000, 0, 100_000);
    const end = usage(3_000_000, 1_000_000, 170_000);
    const s = turnSpend(start, end, priced, 999);
    assert.ok(close(s.costUsd, 1 * 2 + 1 * 0.5 + 0.07 * 10));
    assert.ok(close(s.sessionTotal!, 2 * 2 + 1 * 0.5 + 0.17 * 10));
    assert.equal(s.tokens, 2_070_000);
  });

  it("without the thread's usage before the turn, charges the total less the session's last known total", () => {
    const end = usage(2_000_000, 0, 0);
    assert.ok(close(turnSpend(undefined, end, priced, 3).costUsd, 1));
    assert.ok(close(turnSpend(undefined, end, priced, undefined).costUsd, 4));
    assert.equal(turnSpend(undefined, end, priced, 10).costUsd, 0);
  });

  it('charges nothing for a model without a price, and counts its tokens', () => {
    assert.deepEqual(turnSpend(NO_USAGE, usage(1000, 0, 50), unpriced, undefined), {
      costUsd: 0,
      sessionTotal: 0,
      tokens: 1050,
    });
  });

  it('charges nothing when codex said no usage', () => {
    assert.deepEqual(turnSpend(NO_USAGE, undefined, priced, undefined), {
      costUsd: 0,
      sessionTotal: null,
      tokens: 0,
    });
  });
});
