import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reusedId, storeFromState } from '../../machines/run-store.js';
import { freshState } from '../helpers/fake-actors.js';
import type { StoredAgent } from '../../machines/types.js';

function worker(id: string): StoredAgent {
  return {
    id,
    state: 'W',
    session: null,
    branchFrom: null,
    stack: [],
    cwd: '/wf',
    attributes: {},
    input: null,
    status: 'terminated',
    result: id,
  };
}

describe('run store', () => {
  it('raises fork counters above the ids a run already holds, and journals the change', () => {
    const state = freshState();
    state.agents.push(worker('main_w11'));
    state.fork_counters = { main: 1 };
    const store = storeFromState(state);
    assert.equal(store.meta.fork_counters.main, 11);
    assert.deepEqual([...store.dirty.forkCounters], ['main']);
    assert.deepEqual(state.fork_counters, { main: 1 }, 'the snapshot given is not changed');
  });

  it('leaves counters of runs named by the current rule as they are', () => {
    const state = freshState();
    state.agents.push(worker('main_w1'), worker('main_worker2'));
    state.fork_counters = { main: 2 };
    const store = storeFromState(state);
    assert.deepEqual(store.meta.fork_counters, { main: 2 });
    assert.equal(store.dirty.forkCounters.size, 0);
  });

  it('finds a worker id the run holds or a fork names twice', () => {
    const state = freshState();
    state.agents.push(worker('main_w1'));
    const store = storeFromState(state);
    assert.equal(reusedId(store, ['main_w2', 'main_w3']), undefined);
    assert.equal(reusedId(store, ['main_w2', 'main_w1']), 'main_w1');
    assert.equal(reusedId(store, ['main_w2', 'main_w2']), 'main_w2');
  });
});
