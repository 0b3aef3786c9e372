import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { priceOf } from '../../../src/agents/anthropic-prices.js';
import { StreamReader } from '../../../src/agents/claude/stream-reader.js';
import type { StreamProgress } from '../../../src/agents/claude/stream-summary.js';
import { StreamUsage, usageCost } from '../../../src/agents/claude/stream-usage.js';

const PRICE = { input: 3, cacheRead: 0.3, output: 15 };
const near = (actual: number, expected: number) =>
  assert.ok(Math.abs(actual - expected) < 1e-12, `${actual} vs ${expected}`);

/** One assistant line of Claude Code's stream-json: a content block of message `id`, with its usage as known then. */
const assistant = (id: string, usage: Record<string, unknown>, model = 'claude-sonnet-4-5') =>
  `${JSON.stringify({
    type: 'assistant',
    session_id: 's1',
    message: { id, model, role: 'assistant', content: [{ type: 'text', text: 'working' }], usage },
  })}\n`;

describe('usageCost', () => {
  it('prices fresh input, cache writes (5-minute at 1.25x input), cache reads and output', () => {
    near(usageCost({ input_tokens: 1_000_000 }, PRICE), 3);
    near(usageCost({ output_tokens: 1_000_000 }, PRICE), 15);
    near(usageCost({ cache_read_input_tokens: 1_000_000 }, PRICE), 0.3);
    near(usageCost({ cache_creation_input_tokens: 1_000_000 }, PRICE), 3.75);
    near(
      usageCost(
        {
          input_tokens: 10,
          cache_creation_input_tokens: 1_000_000,
          cache_creation: { ephemeral_1h_input_tokens: 400_000 },
          cache_read_input_tokens: 100,
          output_tokens: 20,
        },
        PRICE,
      ),
      (10 * 3 + 600_000 * 3.75 + 400_000 * 6 + 100 * 0.3 + 20 * 15) / 1e6,
    );
  });

  it('counts no token of a count that is not a finite number of 0 or more', () => {
    assert.equal(
      usageCost({ input_tokens: -5, output_tokens: 'x', cache_read_input_tokens: Infinity }, PRICE),
      0,
    );
    assert.equal(usageCost(null, PRICE), 0);
  });
});

describe('StreamUsage', () => {
  it('counts a message once, at the latest usage of the lines that carry its id', () => {
    const u = new StreamUsage(() => PRICE);
    assert.equal(
      u.note({ id: 'm1', model: 'x', usage: { input_tokens: 1000, output_tokens: 1 } }),
      true,
    );
    assert.equal(
      u.note({ id: 'm1', model: 'x', usage: { input_tokens: 1000, output_tokens: 1 } }),
      false,
    );
    u.note({ id: 'm1', model: 'x', usage: { input_tokens: 1000, output_tokens: 200 } });
    near(u.costUsd, (1000 * 3 + 200 * 15) / 1e6);
    u.note({ id: 'm2', model: 'x', usage: { input_tokens: 2000, output_tokens: 10 } });
    near(u.costUsd, (3000 * 3 + 210 * 15) / 1e6);
  });

  it("leaves out Claude Code's own <synthetic> messages and lines without usage", () => {
    const u = new StreamUsage(() => PRICE);
    assert.equal(u.note({ id: 'e1', model: '<synthetic>', usage: { input_tokens: 1000 } }), false);
    assert.equal(u.note({ id: 'm1', model: 'x' }), false);
    assert.equal(u.note(undefined), false);
    assert.equal(u.costUsd, 0);
  });

  it("prices each message at its own model's row of the table by default", () => {
    const u = new StreamUsage();
    u.note({ id: 'a', model: 'claude-opus-4-1', usage: { input_tokens: 1_000_000 } });
    u.note({ id: 'b', model: 'claude-haiku-4-5', usage: { input_tokens: 1_000_000 } });
    near(
      u.costUsd,
      priceOf('claude-opus-4-1').price.input + priceOf('claude-haiku-4-5').price.input,
    );
  });
});

describe('StreamReader: the cost streamed so far', () => {
  it("tells each change of the turn's cost as progress, once per message however many lines carry it", () => {
    const progress: StreamProgress[] = [];
    const r = new StreamReader((p) => progress.push(p), undefined, new StreamUsage(() => PRICE));
    r.write(assistant('m1', { input_tokens: 10_000, output_tokens: 5 }));
    r.write(assistant('m1', { input_tokens: 10_000, output_tokens: 5 }));
    r.write(assistant('m2', { input_tokens: 20_000, output_tokens: 5 }));
    const s = r.end();
    const usage = progress.filter((p) => p.kind === 'usage');
    assert.equal(usage.length, 2, JSON.stringify(progress));
    near(s.streamedCostUsd, (30_000 * 3 + 10 * 15) / 1e6);
    assert.equal(s.totalCostUsd, null, 'no result: the turn has no total of its own');
  });
});
