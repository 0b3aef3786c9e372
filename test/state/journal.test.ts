import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { putAgent, putResult, storeFromState, takeDirty } from '../../machines/run-store.js';
import { RaymondError, formatError } from '../../src/errors.js';
import { applyJournal, journalLine } from '../../src/state/journal.js';
import { freshState } from '../helpers/fake-actors.js';

function twoBatches() {
  const store = storeFromState(freshState());
  takeDirty(store);
  const main = store.agents.get('main')!;
  putAgent(store, { ...main, state: 'B' });
  const first = journalLine(store, takeDirty(store), 1, new Map());
  putAgent(store, { ...main, state: 'C', status: 'terminated', result: 'r' });
  putResult(store, 'main', 'r');
  store.meta.status = 'completed';
  const second = journalLine(store, takeDirty(store), 2, new Map());
  return { first, second };
}

describe('journal', () => {
  it('writes only what changed and folds back into the snapshot', () => {
    const { first, second } = twoBatches();
    assert.equal(JSON.parse(first).agents.length, 1);
    assert.equal(JSON.parse(first).results, undefined);
    const state = applyJournal(freshState(), first + second, 'j');
    assert.equal(state.agents[0]!.state, 'C');
    assert.deepEqual(state.results, { main: 'r' });
    assert.equal(state.status, 'completed');
    assert.equal(state.journal_seq, 2);
  });

  it('skips batches the snapshot already holds', () => {
    const { first, second } = twoBatches();
    const snapshot = { ...freshState(), journal_seq: 2, agents: [{ ...freshState().agents[0]!, state: 'LATER' }] };
    assert.equal(applyJournal(snapshot, first + second, 'j').agents[0]!.state, 'LATER');
  });

  it('drops a torn last line (a write that never completed)', () => {
    const { first, second } = twoBatches();
    const state = applyJournal(freshState(), first + second.slice(0, 40), 'j');
    assert.equal(state.agents[0]!.state, 'B');
    assert.equal(state.journal_seq, 1);
  });

  it('refuses damage before the last line', () => {
    const { first, second } = twoBatches();
    assert.throws(() => applyJournal(freshState(), `{"seq": 1, broken\n${first}${second}`, 'wf.journal'), (e) => e instanceof RaymondError && /wf\.journal: the journal is damaged at line 1/.test(formatError(e)));
  });
});
