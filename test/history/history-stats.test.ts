import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { emptyIndex, foldRun, foldStep, runPositions } from '../../src/history/history-fold.js';
import { runCosts, workflowStats } from '../../src/history/history-stats.js';
import type { StepRecord } from '../../src/history/history-types.js';
import { runRecord, stepRecord } from '../helpers/history-records.js';

/** A history of runs r0..: run i's steps of A.md cost `costs[i]` each (one step per entry). */
function history(costsPerRun: number[][]) {
  const index = emptyIndex('wf-00000000');
  costsPerRun.forEach((costs, i) => {
    for (const c of costs)
      foldStep(index, stepRecord({ run: `r${i}`, state: 'A.md', costUsd: c, wallMs: c * 1000 }));
    foldRun(
      index,
      runRecord({ run: `r${i}`, costUsd: costs.reduce((a, b) => a + b, 0), steps: costs.length }),
      runPositions(index),
    );
  });
  return index;
}

describe('workflowStats', () => {
  it('p50 and p90 by nearest rank over every step, and of whole runs', () => {
    const s = workflowStats(
      history([
        [1, 2],
        [3, 4],
        [5, 6],
        [7, 8],
        [9, 10],
      ]),
    );
    const a = s.states.find((x) => x.state === 'A.md')!;
    assert.deepEqual(
      [a.costP50Usd, a.costP90Usd, a.wallP50Ms, a.wallP90Ms, a.runs, a.steps],
      [5, 9, 5000, 9000, 5, 10],
    );
    assert.deepEqual([s.runs, s.totalUsd, s.runCostP50Usd, s.runCostP90Usd], [5, 55, 11, 19]);
  });

  it("flags a state whose latest run's steps cost more, on average, than the p90 before it", () => {
    const flagged = workflowStats(history([[1], [1], [2], [1, 4]])).states[0]!;
    assert.deepEqual(flagged.dearer, { run: 'r3', meanUsd: 2.5, p90Usd: 2 });
    assert.equal(workflowStats(history([[1], [1], [2], [2]])).states[0]!.dearer, undefined);
    // Too little before it (fewer than three steps) to call anything dearer than usual.
    assert.equal(workflowStats(history([[1], [1], [100]])).states[0]!.dearer, undefined);
    // Dearer by a ratio but not by a cent: $0.00003 over a p90 of $0.00002 is noise, not an anomaly.
    const cheap = [[0.00002], [0.00002], [0.00002], [0.00005]];
    assert.equal(workflowStats(history(cheap)).states[0]!.dearer, undefined);
    // Dearer by a cent but not by the ratio: $10.05 over a p90 of $10 is a dear state's spread.
    assert.equal(workflowStats(history([[10], [10], [10], [10.05]])).states[0]!.dearer, undefined);
    assert.equal(workflowStats(history([[10], [10], [10], [12]])).states[0]!.dearer?.meanUsd, 12);
  });

  it('failure rate over steps; retries and reminders summed; model and backend of the latest step', () => {
    const index = emptyIndex('k');
    foldStep(index, stepRecord({ run: 'r', state: 'S.md', outcome: 'failed', retries: 2 }));
    foldStep(index, stepRecord({ run: 'r', state: 'S.md', reminders: 1, model: 'haiku' }));
    foldStep(index, stepRecord({ run: 'r', state: 'S.md' }));
    foldStep(index, stepRecord({ run: 'r', state: 'S.md', model: 'opus' }));
    const s = workflowStats(index).states[0]!;
    assert.deepEqual([s.failureRate, s.retries, s.reminders, s.model], [0.25, 2, 1, 'opus']);
    assert.equal(workflowStats(emptyIndex('k')).runCostP50Usd, 0);
  });
});

describe('runCosts', () => {
  it('cost by state and by agent, dearest first, with shares that sum to 1', () => {
    const steps: StepRecord[] = [
      stepRecord({ run: 'r', state: 'A.md', agent: 'main', costUsd: 0.1, turns: 2, wallMs: 10 }),
      stepRecord({ run: 'r', state: 'W.md', agent: 'main_W1', costUsd: 0.3, wallMs: 20 }),
      stepRecord({ run: 'r', state: 'W.md', agent: 'main_W2', costUsd: 0.2, wallMs: 30 }),
      stepRecord({ run: 'r', state: 'S.md', agent: 'main', scope: 'lib-1', costUsd: 0 }),
    ];
    const c = runCosts('r', steps);
    assert.ok(Math.abs(c.costUsd - 0.6) < 1e-12);
    assert.deepEqual(
      c.byState.map((r) => [r.name, r.steps, r.turns, +r.costUsd.toFixed(9), r.wallMs]),
      [
        ['W.md', 2, 2, 0.5, 50],
        ['A.md', 1, 2, 0.1, 10],
        ['lib-1:S.md', 1, 1, 0, 1000],
      ],
    );
    assert.deepEqual(
      c.byAgent.map((r) => r.name),
      ['main_W1', 'main_W2', 'main'],
    );
    for (const table of [c.byState, c.byAgent])
      assert.ok(Math.abs(table.reduce((a, r) => a + r.share, 0) - 1) < 1e-12);
    assert.deepEqual(
      runCosts('r', [stepRecord({ run: 'r', state: 'A.sh', costUsd: 0 })]).byState[0]!.share,
      0,
    );
  });
});
