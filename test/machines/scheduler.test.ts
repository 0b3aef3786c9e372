import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  clearSlots,
  createSlots,
  enqueue,
  grant,
  release,
  setMarkdownCap,
  waitingCount,
} from '../../machines/scheduler.js';

const wait = (agentId: string, readyAt = 0, markdown = false) => ({
  agentId,
  ref: agentId,
  readyAt,
  markdown,
});

describe('scheduler', () => {
  it('grants first come first served up to maxParallel, and more as slots are released', () => {
    const slots = createSlots<string>(2);
    for (const id of ['a', 'b', 'c']) enqueue(slots, wait(id));
    assert.deepEqual(
      grant(slots, 0).map((w) => w.agentId),
      ['a', 'b'],
    );
    assert.deepEqual(grant(slots, 0), []);
    release(slots, 'a', 0);
    assert.deepEqual(
      grant(slots, 0).map((w) => w.agentId),
      ['c'],
    );
    assert.equal(slots.running, 2);
  });

  it("an account's width caps the markdown steps granted, between one and the ceiling; scripts take the slots left", () => {
    const slots = createSlots<string>(4, 3);
    for (const id of ['m1', 'm2', 'm3']) enqueue(slots, wait(id, 0, true));
    for (const id of ['s1', 's2']) enqueue(slots, wait(id));
    setMarkdownCap(slots, 1);
    assert.deepEqual(
      grant(slots, 0).map((w) => w.agentId),
      ['m1', 's1', 's2'],
    );
    setMarkdownCap(slots, 0);
    assert.equal(slots.maxMarkdown, 1, 'a parked account still lets one step learn it is parked');
    setMarkdownCap(slots, 99);
    assert.equal(slots.maxMarkdown, 3, 'never past the ceiling');
    assert.deepEqual(
      grant(slots, 0).map((w) => w.agentId),
      ['m2'],
      'the fourth slot is free again for markdown',
    );
  });

  it('starts an agent only once the write holding its last step is on disk', () => {
    const slots = createSlots<string>(4);
    enqueue(slots, wait('a', 3));
    enqueue(slots, wait('b', 1));
    assert.deepEqual(grant(slots, 2), [], 'FIFO: b does not overtake a');
    assert.deepEqual(
      grant(slots, 3).map((w) => w.agentId),
      ['a', 'b'],
    );
  });

  it('gives an ended step its slot back only once the write holding its end is on disk', () => {
    const slots = createSlots<string>(2);
    for (const id of ['a', 'b', 'c', 'd']) enqueue(slots, wait(id));
    grant(slots, 0);
    release(slots, 'a', 5);
    release(slots, 'b', 6);
    assert.deepEqual(grant(slots, 4), [], 'neither end is on disk: both slots are held');
    assert.deepEqual(
      grant(slots, 5).map((w) => w.agentId),
      ['c'],
      "a's end is on disk",
    );
    assert.deepEqual(
      grant(slots, 9).map((w) => w.agentId),
      ['d'],
    );
    assert.equal(slots.running, 2);
  });

  it('skips a markdown step held by the markdown cap to serve scripts, keeping its place', () => {
    const slots = createSlots<string>(4, 1);
    enqueue(slots, wait('m1', 0, true));
    enqueue(slots, wait('m2', 0, true));
    enqueue(slots, wait('s1'));
    enqueue(slots, wait('s2'));
    assert.deepEqual(
      grant(slots, 0).map((w) => w.agentId),
      ['m1', 's1', 's2'],
    );
    release(slots, 'm1', 0);
    assert.deepEqual(
      grant(slots, 0).map((w) => w.agentId),
      ['m2'],
    );
    assert.deepEqual([...slots.runningMarkdown], ['m2']);
  });

  it('drops the consumed prefix of a long queue', () => {
    const slots = createSlots<string>(1);
    for (let i = 0; i < 3000; i++) enqueue(slots, wait(`w${i}`));
    for (let i = 0; i < 2000; i++) {
      assert.equal(grant(slots, 0)[0]!.agentId, `w${i}`);
      release(slots, `w${i}`, 0);
    }
    assert.ok(slots.others.items.length < 3000, `queue kept ${slots.others.items.length}`);
    assert.equal(slots.others.items[slots.others.head]!.agentId, 'w2000');
    assert.equal(waitingCount(slots), 1000);
  });

  it('serves agents holding a worktree folder before the others, each queue in arrival order', () => {
    const slots = createSlots<string>(2);
    enqueue(slots, wait('new1'));
    enqueue(slots, wait('new2'));
    enqueue(slots, { ...wait('held1'), holder: true });
    enqueue(slots, wait('new3'));
    enqueue(slots, { ...wait('held2'), holder: true });
    assert.deepEqual(
      grant(slots, 0).map((w) => w.agentId),
      ['held1', 'held2'],
    );
    release(slots, 'held1', 0);
    assert.deepEqual(
      grant(slots, 0).map((w) => w.agentId),
      ['new1'],
    );
  });

  it('clearSlots forgets every waiting and running step', () => {
    const slots = createSlots<string>(1, 1);
    enqueue(slots, wait('m', 0, true));
    enqueue(slots, wait('n'));
    grant(slots, 0);
    clearSlots(slots);
    assert.equal(slots.running, 0);
    assert.equal(slots.runningMarkdown.size, 0);
    assert.deepEqual(grant(slots, 0), []);
  });
});
