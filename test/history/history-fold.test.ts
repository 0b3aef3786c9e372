import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stateKeyOf } from '../../machines/cost-table.js';
import { emptyIndex, foldRun, foldStep, runPositions } from '../../src/history/history-fold.js';
import type { RunRecord, StepRecord } from '../../src/history/history-types.js';
import { runRecord, stepRecord } from '../helpers/history-records.js';

function fold(records: Array<StepRecord | RunRecord>) {
  const index = emptyIndex('wf-00000000');
  for (const r of records)
    if ('state' in r) foldStep(index, r);
    else foldRun(index, r, runPositions(index));
  return index;
}

describe('history fold', () => {
  it('counts visits per state only once a run is final; an unfinished run stays open', () => {
    const steps = [
      stepRecord({ run: 'r1', state: 'A.md', costUsd: 0.1 }),
      stepRecord({ run: 'r1', state: 'A.md', costUsd: 0.2 }),
      stepRecord({ run: 'r1', state: 'B.md', costUsd: 0.3, outcome: 'result' }),
    ];
    const paused = fold([...steps, runRecord({ run: 'r1', status: 'paused', steps: 3 })]);
    assert.deepEqual(paused.states['A.md']!.visits, []);
    assert.deepEqual(paused.open, { r1: { 'A.md': 2, 'B.md': 1 } });
    assert.equal(paused.states['A.md']!.runs, 1);
    assert.equal(paused.states['A.md']!.steps, 2);
    assert.deepEqual(paused.states['A.md']!.costs, [0.1, 0.2]);

    for (const status of ['completed', 'failed', 'budget_exceeded']) {
      const done = fold([...steps, runRecord({ run: 'r1', status, steps: 3 })]);
      assert.deepEqual(done.states['A.md']!.visits, [2], status);
      assert.deepEqual(done.states['B.md']!.visits, [1], status);
      assert.deepEqual(done.open, {}, status);
    }
  });

  it('a resumed run is one run: its steps add up, its last record wins, visits span both parts', () => {
    const index = fold([
      stepRecord({ run: 'r1', state: 'A.md' }),
      runRecord({ run: 'r1', status: 'paused', steps: 1, costUsd: 0.01, maxLive: 3 }),
      stepRecord({ run: 'r1', state: 'A.md' }),
      stepRecord({ run: 'r1', state: 'B.md' }),
      runRecord({ run: 'r1', status: 'completed', steps: 2, costUsd: 0.03, maxLive: 1 }),
    ]);
    assert.equal(index.runs.length, 1);
    assert.deepEqual(
      { ...index.runs[0]!, fingerprint: undefined },
      {
        run: 'r1',
        startedAt: 0,
        endedAt: 2_000,
        status: 'completed',
        costUsd: 0.03,
        steps: 3,
        fingerprint: undefined,
        maxLive: 3,
      },
    );
    assert.deepEqual(index.states['A.md']!.visits, [2]);
    assert.equal(index.states['A.md']!.runs, 1, 'one run, not one per part');
  });

  it('keeps the mean cost of a worker per start state, one entry per run that forked there', () => {
    const index = fold([
      runRecord({ run: 'r1', workers: { 'W.md': { count: 4, costUsd: 2 } } }),
      runRecord({
        run: 'r2',
        workers: { 'W.md': { count: 2, costUsd: 3 }, 'X.md': { count: 0, costUsd: 0 } },
      }),
    ]);
    assert.deepEqual(index.workers, { 'W.md': [0.5, 1.5] });
  });

  it("holds the latest run's steps of each state apart, and counts turns, retries, reminders, failures and widths", () => {
    const index = fold([
      stepRecord({ run: 'r1', state: 'A.md', costUsd: 1, turns: 2, retries: 1, reminders: 1 }),
      stepRecord({ run: 'r2', state: 'A.md', costUsd: 2, outcome: 'failed', model: 'opus' }),
      stepRecord({ run: 'r2', state: 'A.md', costUsd: 3, outcome: 'fork', width: 5 }),
    ]);
    const a = index.states['A.md']!;
    assert.deepEqual(a.latest, { run: 'r2', costs: [2, 3] });
    assert.deepEqual([a.runs, a.steps, a.turns, a.retries, a.reminders], [2, 3, 4, 1, 1]);
    assert.equal(a.failures, 1);
    assert.deepEqual(a.widths, [5]);
    assert.equal(a.model, undefined, 'the latest step named no model: the default');
  });

  it("keys a cross-workflow callee's states by its workflow", () => {
    assert.equal(stateKeyOf({ state: 'S.md' }), 'S.md');
    assert.equal(stateKeyOf({ state: 'S.md', scope: 'lib-12345678' }), 'lib-12345678:S.md');
    const index = fold([stepRecord({ run: 'r1', state: 'S.md', scope: 'lib-12345678' })]);
    assert.deepEqual(Object.keys(index.states), ['lib-12345678:S.md']);
  });
});
