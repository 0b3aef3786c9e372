import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunEvent } from '../../machines/run-events.js';
import { AccountWidth } from '../../src/agents/account-width.js';
import { RESET_MARGIN_MS, WIDTH_TUNING } from '../../src/agents/width-rules.js';
import { RaymondError } from '../../src/errors.js';

function width(ceiling: number, start = 4) {
  const events: RunEvent[] = [];
  let now = 0;
  const w = new AccountWidth(
    'claude',
    ceiling,
    (e) => events.push(e),
    { ...WIDTH_TUNING, start, holdMs: 0, windowMs: 1000 },
    () => now,
  );
  return { w, events, at: (ms: number) => (now = ms) };
}

const signal = () => new AbortController().signal;

/** Starts `n` turns at once and says how many got their place before the next tick. */
async function startMany(w: AccountWidth, n: number): Promise<number> {
  let started = 0;
  for (let i = 0; i < n; i++)
    void w.acquire(signal()).then(
      () => started++,
      () => {},
    );
  await new Promise((ok) => setImmediate(ok));
  return started;
}

describe('AccountWidth', () => {
  it("once its account's gate knows the rate, starts turns one request's spacing apart, and none while 5 s of requests wait there; says the rate, and each move of a tenth", async () => {
    const { w, events, at } = width(50, 8);
    const view = {
      waiting: 0,
      perSecond: undefined as number | undefined,
      told: false,
      absorbed: 0,
    };
    let changed = () => {};
    w.attach({ view, onChange: (l) => (changed = l) });
    assert.equal(await startMany(w, 2), 2, 'no rate known: the width alone');
    Object.assign(view, { perSecond: 0.5, told: true });
    changed();
    let started = 0;
    for (let i = 0; i < 4; i++) void w.acquire(signal()).then(() => started++);
    const tick = () => new Promise((ok) => setImmediate(ok));
    await tick();
    assert.equal(started, 0, 'the last turn started now: the next in 2 s');
    at(2000);
    changed();
    await tick();
    assert.equal(started, 1);
    at(3000);
    changed();
    await tick();
    assert.equal(started, 1, 'not before 4 s');
    at(4000);
    view.waiting = 3;
    changed();
    await tick();
    assert.equal(started, 1, "3 requests wait: 5 s of the account's rate");
    view.waiting = 2;
    changed();
    await tick();
    assert.equal(started, 2);
    view.perSecond = 0.52;
    changed();
    view.perSecond = 0.25;
    changed();
    assert.deepEqual(
      events.flatMap((e) =>
        e.type === 'width.changed' ? [[e.why, e.perMinute, e.told, e.width]] : [],
      ),
      [
        ['paced', 30, true, 8],
        ['paced', 15, true, 8],
      ],
      '31 a minute is within a tenth of 30: no news',
    );
    w.close();
  });

  it('starts at most its width; a release lets the next waiter in', async () => {
    const { w } = width(50);
    assert.equal(await startMany(w, 10), 4);
    w.release(true);
    await new Promise((ok) => setImmediate(ok));
    assert.equal(w.current, 5, 'slow start: each success while full adds one');
  });

  it('a burst of refusals lowers the width once per window, from the turns running; it never passes the ceiling', async () => {
    const { w, events, at } = width(6, 6);
    await startMany(w, 6);
    w.limited(429, 500);
    w.limited(429, 500);
    w.limited(529, 500);
    assert.equal(w.current, 4, 'floor(6 * 0.7), once');
    at(1000);
    w.limited(529, null);
    assert.equal(w.current, 2);
    assert.deepEqual(
      events.map((e) => e.type === 'width.changed' && [e.why, e.width, e.was]),
      [
        ['rate-limited', 4, 6],
        ['overloaded', 2, 4],
      ],
    );
    for (let i = 0; i < 6; i++) w.release(true);
    // Rounds that fill the width: each full round grows it, slower past the width last refused (4).
    for (let round = 0; round < 200; round++) {
      const n = w.current;
      for (let i = 0; i < n; i++) await w.acquire(signal());
      for (let i = 0; i < n; i++) w.release(true);
    }
    assert.equal(w.current, 6, 'grown back to the ceiling, never past it');
  });

  it('after a refusal no turn starts until the hold ends, then waiters start', async () => {
    const events: RunEvent[] = [];
    const w = new AccountWidth('claude', 10, (e) => events.push(e), {
      ...WIDTH_TUNING,
      start: 10,
      holdMs: 50,
    });
    w.limited(429, null);
    const t0 = Date.now();
    await w.acquire(signal());
    assert.ok(Date.now() - t0 >= 40, 'held');
  });

  it('a usage limit refuses every waiting and new turn until its reset, and says until when', async () => {
    const events: RunEvent[] = [];
    const told: number[] = [];
    let now = 0;
    const at = (ms: number) => (now = ms);
    const w = new AccountWidth(
      'claude',
      10,
      (e) => events.push(e),
      { ...WIDTH_TUNING, start: 1, holdMs: 0 },
      () => now,
      (n) => told.push(n),
    );
    await w.acquire(signal());
    const waiting = w.acquire(signal());
    w.park(60_000, 'Claude usage limit reached');
    // Each refused turn's agent pauses with the reset itself: the run's wait adds its own margin.
    const refused = (e: RaymondError) =>
      e.code === 'ERR_USAGE_LIMIT' && e.details.resetsAt === 60_000 && e.details.costUsd === 0;
    await assert.rejects(waiting, refused);
    await assert.rejects(w.acquire(signal()), refused);
    const last = events.at(-1)!;
    assert.ok(last.type === 'width.changed' && last.why === 'usage-limit' && last.width === 0);
    assert.equal(last.until, new Date(60_000 + RESET_MARGIN_MS).toISOString());
    at(60_000);
    await assert.rejects(w.acquire(signal()), refused, 'parked until the margin past the reset');
    at(60_000 + RESET_MARGIN_MS);
    w.release(true);
    await w.acquire(signal());
    // The turn that ran through the park grew the width (slow start) without lifting the run's hold at 0.
    assert.deepEqual(told, [1, 0, 2], 'the run is told the width again once the reset came');
  });

  it('a stopped turn leaves the queue', async () => {
    const { w } = width(1, 1);
    await w.acquire(signal());
    const ctl = new AbortController();
    const waiting = w.acquire(ctl.signal);
    ctl.abort();
    await assert.rejects(waiting, /stopped/);
    w.release(true);
    await w.acquire(signal());
  });
});
