import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunEvent } from '../../machines/run-events.js';
import { AccountWidths } from '../../src/agents/account-widths.js';
import { WIDTH_TUNING } from '../../src/agents/width-rules.js';

/** A run as the widths see it: what it was told. */
function run() {
  const events: RunEvent[] = [];
  const widths: number[] = [];
  return {
    events,
    widths,
    listener: { emit: (e: RunEvent) => events.push(e), onWidth: (n: number) => widths.push(n) },
  };
}

const signal = () => new AbortController().signal;
const KEY = { ANTHROPIC_API_KEY: 'sk-one', ANTHROPIC_BASE_URL: 'http://api.test' };

describe('AccountWidths: one width per account for every run of a process', () => {
  it('two runs against one account share its width: both start no more than it, and a refusal narrows it for both', async () => {
    let now = 0;
    const widths = new AccountWidths(
      { ...WIDTH_TUNING, start: 4, holdMs: 0, windowMs: 1000 },
      () => now,
    );
    const a = run();
    const b = run();
    const wa = widths.join('claude', KEY, 50, a.listener);
    const wb = widths.join('claude', { ...KEY, HOME: '/elsewhere' }, 50, b.listener);
    assert.deepEqual([a.widths, b.widths], [[4], [4]]);
    let started = 0;
    for (let i = 0; i < 3; i++) void wa.acquire(signal()).then(() => started++);
    for (let i = 0; i < 3; i++)
      void wb.acquire(signal()).then(
        () => started++,
        () => {},
      );
    await new Promise((ok) => setImmediate(ok));
    assert.equal(started, 4, 'six turns of two runs, four places');
    now = 10;
    wb.limited(429, 0);
    // Four running: 0.7 x 4 = 2, told to both runs' caps and both runs' streams.
    assert.equal(a.widths.at(-1), 2);
    assert.equal(b.widths.at(-1), 2);
    for (const r of [a, b])
      assert.deepEqual(
        r.events.map((e) => e.type === 'width.changed' && [e.width, e.was, e.why]),
        [[2, 4, 'rate-limited']],
      );
  });

  it('another account, or another backend, has a width of its own', async () => {
    const widths = new AccountWidths({ ...WIDTH_TUNING, start: 1 });
    const one = widths.join('claude', KEY, 10, run().listener);
    const other = widths.join(
      'claude',
      { ...KEY, ANTHROPIC_API_KEY: 'sk-two' },
      10,
      run().listener,
    );
    const codex = widths.join('codex', KEY, 10, run().listener);
    await one.acquire(signal());
    // Each would wait for ever if it shared the one place.
    await other.acquire(signal());
    await codex.acquire(signal());
  });

  it("the ceiling is the highest of the runs' and a run that leaves is told nothing more", async () => {
    const widths = new AccountWidths({ ...WIDTH_TUNING, start: 2, holdMs: 0 });
    const low = run();
    const high = run();
    const wl = widths.join('claude', KEY, 2, low.listener);
    const wh = widths.join('claude', KEY, 6, high.listener);
    // A round at full width grows it by one, past the first run's ceiling of 2.
    for (let round = 0; round < 4; round++) {
      const n = high.widths.at(-1)!;
      for (let i = 0; i < n; i++) await wh.acquire(signal());
      for (let i = 0; i < n; i++) await wh.release(true);
    }
    assert.equal(high.widths.at(-1), 6);
    wl.close!();
    const told = low.widths.length;
    wh.limited(529, 0);
    assert.equal(low.widths.length, told);
    assert.ok(high.widths.at(-1)! < 6);
  });
});
