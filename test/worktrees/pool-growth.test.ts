import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { averageHold, growDelayMs } from '../../src/worktrees/pool-growth.js';

describe('growDelayMs', () => {
  it('makes the first folder at once and none while nobody waits', () => {
    assert.equal(growDelayMs({ alive: 0, waiting: 3 }), 0);
    assert.equal(
      growDelayMs({ alive: 2, waiting: 0, createMs: 10, oldestHoldMs: 1e6 }),
      Number.POSITIVE_INFINITY,
    );
  });

  it('grows when the work waiting outweighs what one more checkout costs, judged on the holds seen', () => {
    // 3 folders, 5 waiting, a checkout of 2 s: pays once agents hold a folder 1.2 s or more.
    assert.equal(growDelayMs({ alive: 3, waiting: 5, createMs: 2000, holdMs: 1500 }), 0);
    assert.equal(
      growDelayMs({ alive: 3, waiting: 5, createMs: 2000, holdMs: 300 }),
      Number.POSITIVE_INFINITY,
    );
    // No agent gave a folder back yet: the longest hold stands in, and says when to look again.
    assert.equal(growDelayMs({ alive: 3, waiting: 5, createMs: 2000, oldestHoldMs: 200 }), 1000);
    assert.equal(
      growDelayMs({ alive: 3, waiting: 5, createMs: 2000, holdMs: 100, oldestHoldMs: 1300 }),
      0,
    );
  });

  it('grows as needed when the cost of a checkout is not known (folders found by a resumed run)', () => {
    assert.equal(growDelayMs({ alive: 2, waiting: 1 }), 0);
  });

  it('averages holds, recent ones weighing more', () => {
    assert.equal(averageHold(undefined, 100), 100);
    assert.equal(averageHold(100, 200), 130);
  });
});
