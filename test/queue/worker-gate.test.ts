import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TurnWidth } from '../../src/agents/agent-backend.js';
import { RaymondError } from '../../src/errors.js';
import { WorkerGate } from '../../src/queue/worker-gate.js';

/** A width that lets a turn start only when `open()` is called, and records what it was told. */
function heldWidth() {
  const told: string[] = [];
  let open: () => void = () => undefined;
  const width: TurnWidth = {
    acquire: () => new Promise<void>((resolve) => (open = resolve)),
    release: (answered) => void told.push(`release ${answered}`),
    limited: (status) => void told.push(`limited ${status}`),
    park: () => void told.push('park'),
  };
  return { width, told, open: () => open() };
}

describe("WorkerGate: a worker's places", () => {
  it('lets `size` steps in at once and the next in line as one leaves', async () => {
    const gate = new WorkerGate(2);
    const signal = new AbortController().signal;
    await gate.enter(signal);
    await gate.enter(signal);
    let third = false;
    const waiting = gate.enter(signal).then(() => (third = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(third, false);
    assert.equal(gate.running, 2);
    gate.leave();
    await waiting;
    assert.equal(gate.running, 2);
    gate.leave();
    gate.leave();
    assert.equal(gate.running, 0);
  });

  it('a turn waiting for its account holds no place: a script takes it meanwhile', async () => {
    const gate = new WorkerGate(1);
    const signal = new AbortController().signal;
    const held = heldWidth();
    const turn = gate.after(held.width);
    let started = false;
    const starting = turn.acquire(signal).then(() => (started = true));
    await gate.enter(signal);
    assert.equal(gate.running, 1, 'the script has the only place');
    held.open();
    await new Promise((r) => setImmediate(r));
    assert.equal(started, false, 'the turn has its account, and waits for the place');
    gate.leave();
    await starting;
    await turn.release(true);
    assert.equal(gate.running, 0);
    assert.deepEqual(held.told, ['release true']);
  });

  it('a turn stopped while it waits for a place gives its account place back, unanswered', async () => {
    const gate = new WorkerGate(1);
    await gate.enter(new AbortController().signal);
    const held = heldWidth();
    const ac = new AbortController();
    const starting = gate.after(held.width).acquire(ac.signal);
    held.open();
    await new Promise((r) => setImmediate(r));
    ac.abort();
    await assert.rejects(
      starting,
      (err: unknown) => err instanceof RaymondError && err.message === 'stopped',
    );
    assert.deepEqual(held.told, ['release false']);
    gate.leave();
    assert.equal(gate.running, 0);
  });

  it('passes refusals and parks on to the width; with no width, the place alone', async () => {
    const gate = new WorkerGate(1);
    const held = heldWidth();
    const turn = gate.after(held.width);
    turn.limited(429, 1000);
    turn.park(Date.now() + 1000, 'spent');
    assert.deepEqual(held.told, ['limited 429', 'park']);
    const bare = gate.after(undefined);
    await bare.acquire(new AbortController().signal);
    assert.equal(gate.running, 1);
    bare.limited(529, null);
    await bare.release(true);
    assert.equal(gate.running, 0);
  });
});
