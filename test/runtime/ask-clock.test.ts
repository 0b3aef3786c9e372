import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AgentAsk } from '../../machines/types.js';
import { createAskClock } from '../../src/runtime/ask-clock.js';
import { MAX_TIMER_MS } from '../../src/timer-delay.js';

const ask = (id: string, timeoutAt?: number): AgentAsk => ({
  id,
  agent_id: 'main',
  prompt: 'q',
  created_at: '2026-01-01T00:00:00.000Z',
  next: 'N.sh',
  ...(timeoutAt !== undefined ? { timeout_at: new Date(timeoutAt).toISOString() } : {}),
});

describe('createAskClock', () => {
  it('fires an ask when its time comes, one already due at once, and one without a timeout never', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
    const fired: string[] = [];
    const clock = createAskClock(
      (agentId, askId) => fired.push(`${agentId}:${askId}`),
      () => Date.now(),
    );
    clock.watch(ask('due', 999_000));
    clock.watch(ask('later', 1_060_000));
    clock.watch(ask('never'));
    t.mock.timers.tick(0);
    assert.deepEqual(fired, ['main:due']);
    t.mock.timers.tick(59_999);
    assert.deepEqual(fired, ['main:due']);
    t.mock.timers.tick(1);
    assert.deepEqual(fired, ['main:due', 'main:later']);
    clock.close();
  });

  it('reaches a due time past the longest timer in several waits, and fires nothing once closed', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    const fired: string[] = [];
    const clock = createAskClock(
      (_, askId) => fired.push(askId),
      () => Date.now(),
    );
    clock.watch(ask('far', MAX_TIMER_MS + 5_000));
    t.mock.timers.tick(MAX_TIMER_MS);
    assert.deepEqual(fired, [], 'the first wait ends before the due time: it waits again');
    t.mock.timers.tick(5_000);
    assert.deepEqual(fired, ['far']);
    clock.watch(ask('closed', MAX_TIMER_MS + 10_000));
    clock.close();
    t.mock.timers.tick(MAX_TIMER_MS);
    assert.deepEqual(fired, ['far']);
  });
});
