import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunOutcome } from '../../src/runtime/run-types.js';
import { RESET_MARGIN_MS } from '../../src/agents/width-rules.js';
import { waitOutUsageLimits } from '../../src/runtime/usage-limit-wait.js';

const outcome = (status: string, waitUntil?: number): RunOutcome =>
  ({ workflowId: 'wf', status, waitUntil }) as unknown as RunOutcome;

/** A fake clock: sleeping moves it on, as far as asked. */
function clock(start: number) {
  let now = start;
  const slept: number[] = [];
  return { now: () => now, sleep: async (ms: number) => void (slept.push(ms), (now += ms)), slept };
}

describe('waitOutUsageLimits', () => {
  it('returns an outcome with no limit as it is, without waiting', async () => {
    const c = clock(0);
    const done = outcome('completed');
    assert.equal(
      await waitOutUsageLimits(done, {
        resume: () => assert.fail('no resume'),
        signal: new AbortController().signal,
        onWait: () => assert.fail('no wait'),
        ...c,
      }),
      done,
    );
  });

  it('waits until a little past the reset, then resumes, as often as the run hits a limit again', async () => {
    const c = clock(1_000);
    const waits: number[] = [];
    const parts = [outcome('paused', 90_000), outcome('completed')];
    const resumed: string[] = [];
    const last = await waitOutUsageLimits(outcome('paused', 50_000), {
      resume: async (id) => (resumed.push(id), parts.shift()!),
      signal: new AbortController().signal,
      onWait: (until) => waits.push(until.getTime()),
      ...c,
    });
    assert.equal(last.status, 'completed');
    assert.deepEqual(resumed, ['wf', 'wf']);
    assert.deepEqual(waits, [50_000 + RESET_MARGIN_MS, 90_000 + RESET_MARGIN_MS]);
    assert.equal(c.now(), 90_000 + RESET_MARGIN_MS);
  });

  it("sleeps in steps Node's timers hold, so a reset weeks away does not wake the run at once", async () => {
    const c = clock(0);
    const month = 30 * 24 * 3600 * 1000;
    await waitOutUsageLimits(outcome('paused', month), {
      resume: async () => outcome('completed'),
      signal: new AbortController().signal,
      onWait: () => {},
      ...c,
    });
    assert.ok(c.slept.length >= 2 && c.slept.every((ms) => ms <= 2 ** 31 - 1), String(c.slept));
  });

  it('gives up the wait when aborted (Ctrl-C): the paused outcome is returned, nothing resumed', async () => {
    const stop = new AbortController();
    const paused = outcome('paused', 10_000);
    const c = clock(0);
    const last = await waitOutUsageLimits(paused, {
      resume: () => assert.fail('no resume'),
      signal: stop.signal,
      onWait: () => {},
      now: c.now,
      sleep: async () => stop.abort(),
    });
    assert.equal(last, paused);
  });
});
