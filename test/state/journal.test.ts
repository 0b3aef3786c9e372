import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pushFrame } from '../../machines/frame-stack.js';
import {
  putAgent,
  putResult,
  putWidth,
  storeFromState,
  takeDirty,
} from '../../machines/run-store.js';
import type { Frame } from '../../machines/types.js';
import { RaymondError, formatError } from '../../src/errors.js';
import {
  applyJournal,
  journalLine,
  noteWritten,
  type WrittenStacks,
} from '../../src/state/journal.js';
import { expandState } from '../../machines/written-agent.js';
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

  it("leaves the options out when told, and a terminated agent's result and reserved session; the fold puts the result back", () => {
    const store = storeFromState(freshState());
    takeDirty(store);
    const main = store.agents.get('main')!;
    putAgent(store, {
      ...main,
      state: 'C',
      status: 'terminated',
      result: 'r',
      next_session: 'never-used',
    });
    putResult(store, 'main', 'r');
    const line = journalLine(store, takeDirty(store), 1, new Map(), false);
    const batch = JSON.parse(line) as { meta: object; agents: Array<Record<string, unknown>> };
    assert.ok(!('options' in batch.meta));
    assert.deepEqual(Object.keys(batch.agents[0]!).sort(), [
      'cwd',
      'id',
      'stack_keep',
      'state',
      'status',
    ]);
    const state = expandState(applyJournal(freshState(), line, 'j'));
    assert.equal(state.options.max_parallel, freshState().options.max_parallel);
    const agent = state.agents[0]!;
    assert.equal(agent.result, 'r');
    assert.equal(agent.session, null);
    assert.deepEqual(agent.attributes, {});
    assert.equal(agent.next_session, undefined);
  });

  it("writes the accounts' widths only in the line after they changed; the fold keeps the latest", () => {
    const store = storeFromState(freshState());
    takeDirty(store);
    const narrow = { width: 7, was: 50, ceiling: 50, why: 'rate-limited', at: 'T1' } as const;
    putWidth(store, 'claude', narrow);
    const first = journalLine(store, takeDirty(store), 1, new Map());
    assert.deepEqual(JSON.parse(first).meta.account_widths, { claude: narrow });
    const main = store.agents.get('main')!;
    putAgent(store, { ...main, state: 'B' });
    const second = journalLine(store, takeDirty(store), 2, new Map());
    assert.equal(JSON.parse(second).meta.account_widths, undefined, 'unchanged: not written again');
    const parked = {
      width: 0,
      was: 7,
      ceiling: 50,
      why: 'usage-limit',
      until: 'U',
      at: 'T2',
    } as const;
    putWidth(store, 'pi', parked);
    const third = journalLine(store, takeDirty(store), 3, new Map());
    const state = applyJournal(freshState(), first + second + third, 'j');
    assert.deepEqual(state.account_widths, { claude: narrow, pi: parked });
    assert.deepEqual(applyJournal(freshState(), first + second, 'j').account_widths, {
      claude: narrow,
    });
  });

  it('skips batches the snapshot already holds', () => {
    const { first, second } = twoBatches();
    const snapshot = {
      ...freshState(),
      journal_seq: 2,
      agents: [{ ...freshState().agents[0]!, state: 'LATER' }],
    };
    assert.equal(applyJournal(snapshot, first + second, 'j').agents[0]!.state, 'LATER');
  });

  it('drops a torn last line (a write that never completed)', () => {
    const { first, second } = twoBatches();
    const state = applyJournal(freshState(), first + second.slice(0, 40), 'j');
    assert.equal(state.agents[0]!.state, 'B');
    assert.equal(state.journal_seq, 1);
  });

  it('refuses a line that is JSON but not a record, even the last one', () => {
    const { first } = twoBatches();
    for (const bad of ['5', 'null', '{"seq": 2}', '{"seq": 2, "meta": {}}']) {
      assert.throws(
        () => applyJournal(freshState(), `${first}${bad}\n`, 'wf.journal'),
        (e) =>
          e instanceof RaymondError &&
          formatError(e) ===
            'wf.journal: the journal is damaged at line 2: valid JSON, but not a journal record',
        bad,
      );
    }
  });

  it('refuses damage before the last line', () => {
    const { first, second } = twoBatches();
    assert.throws(
      () => applyJournal(freshState(), `{"seq": 1, broken\n${first}${second}`, 'wf.journal'),
      (e) =>
        e instanceof RaymondError &&
        /wf\.journal: the journal is damaged at line 1/.test(formatError(e)),
    );
  });
});

describe('journal: return stacks', () => {
  const frame = (state: string): Frame => ({ state, session: null });

  /** A store 500 frames deep whose stack is on disk, as after a snapshot. */
  function deepStore() {
    const frames = Array.from({ length: 500 }, (_, i) => frame(`R${i}`));
    const store = storeFromState(freshState('START', { stack: frames }));
    takeDirty(store);
    const written: WrittenStacks = new Map();
    noteWritten(written, 'main', store.agents.get('main')!.stack);
    return { store, written, frames };
  }

  it('writes a push or a pop as the frames kept and pushed, not the whole stack, and folds it back', () => {
    const { store, written, frames } = deepStore();
    const main = store.agents.get('main')!;
    putAgent(store, { ...main, state: 'CALLEE', stack: pushFrame(main.stack, frame('AFTER')) });
    const push = journalLine(store, takeDirty(store), 1, written);
    noteWritten(written, 'main', store.agents.get('main')!.stack);
    putAgent(store, { ...main, state: 'R499', stack: main.stack!.below });
    const pop = journalLine(store, takeDirty(store), 2, written);
    assert.deepEqual(JSON.parse(push).agents[0].stack_keep, 500);
    assert.deepEqual(JSON.parse(push).agents[0].stack_push, [frame('AFTER')]);
    assert.equal(JSON.parse(pop).agents[0].stack_keep, 499);
    assert.equal(JSON.parse(pop).agents[0].stack_push, undefined);
    assert.ok(Buffer.byteLength(push) < 600, `${Buffer.byteLength(push)} bytes at depth 500`);

    const snapshot = freshState('START', { stack: frames });
    const afterPush = applyJournal(snapshot, push, 'j');
    assert.deepEqual(afterPush.agents[0]!.stack, [...frames, frame('AFTER')]);
    assert.equal(afterPush.agents[0]!.state, 'CALLEE');
    assert.deepEqual(
      applyJournal(snapshot, push + pop, 'j').agents[0]!.stack,
      frames.slice(0, 499),
    );
    assert.equal(
      snapshot.agents[0]!.stack.length,
      500,
      'folding leaves the snapshot it was given as it was',
    );
  });

  it('folds lines of the older format, which hold the whole stack', () => {
    const old = `${JSON.stringify({ seq: 1, meta: { status: 'running', total_cost_usd: 0, updated_at: 'x', options: freshState().options, error: null }, agents: [{ ...freshState().agents[0]!, state: 'CALLEE', stack: [frame('AFTER')] }] })}\n`;
    assert.deepEqual(applyJournal(freshState(), old, 'j').agents[0]!.stack, [frame('AFTER')]);
  });

  it('calls a change that does not fit the stack before it damage, naming the line', () => {
    const { store, written } = deepStore();
    putAgent(store, { ...store.agents.get('main')!, state: 'X' });
    const line = journalLine(store, takeDirty(store), 1, written);
    assert.throws(
      () => applyJournal(freshState(), line, 'wf.journal'),
      (e) =>
        e instanceof RaymondError &&
        /wf\.journal: the journal is damaged at line 1/.test(formatError(e)),
    );
  });
});
