import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkflowHistory } from '../../src/history/history-types.js';
import { stateHistory } from '../helpers/plan-fixtures.js';
import {
  budgetFor,
  historyForecast,
  runTotals,
  visitsOf,
  workerCosts,
} from '../../src/plan/history-figures.js';

describe('history figures', () => {
  it('forecasts a step from its state’s costs and walls; a script is free whatever it recorded', () => {
    const h = stateHistory('A.md', { costs: [0.1, 0.3, 0.2], walls: [1000, 3000, 2000] });
    assert.deepEqual(historyForecast(h), {
      p50Usd: 0.2,
      p90Usd: 0.3,
      p50Ms: 2000,
      p90Ms: 3000,
      basis: 'history',
    });
    const script = stateHistory('B.sh', { costs: [0, 0], walls: [10, 20], backend: 'script' });
    assert.deepEqual(historyForecast(script), {
      p50Usd: 0,
      p90Usd: 0,
      p50Ms: 10,
      p90Ms: 20,
      basis: 'free',
    });
    assert.equal(historyForecast(stateHistory('C.md', { costs: [], walls: [] })), undefined);
    assert.equal(historyForecast(undefined), undefined);
  });

  it('reads visits per run, workers and run totals', () => {
    const h = stateHistory('R.md', {
      costs: [1, 1, 1, 1, 1, 1],
      walls: [1, 1, 1, 1, 1, 1],
      visits: [1, 2, 3],
    });
    assert.deepEqual(visitsOf(h), { p50: 2, p90: 3 });
    const history: WorkflowHistory = {
      key: 'w-00000000',
      workflow: 'w',
      path: '/w',
      fingerprint: 'f',
      runCount: 3,
      totalUsd: 0.9,
      runs: [
        {
          run: 'a',
          startedAt: 0,
          endedAt: 4000,
          status: 'completed',
          costUsd: 0.4,
          steps: 3,
          fingerprint: 'f',
          maxLive: 1,
        },
        {
          run: 'b',
          startedAt: 0,
          endedAt: 2000,
          status: 'completed',
          costUsd: 0.2,
          steps: 3,
          fingerprint: 'f',
          maxLive: 1,
        },
        {
          run: 'c',
          startedAt: 0,
          endedAt: 3000,
          status: 'failed',
          costUsd: 0.3,
          steps: 3,
          fingerprint: 'f',
          maxLive: 1,
        },
      ],
      states: {},
      workers: { 'W.md': [0.05, 0.07] },
    };
    // Only the runs that completed are whole runs: the failed one (c) stopped part of the way.
    assert.deepEqual(runTotals(history), {
      cost: { p50: 0.2, p90: 0.4 },
      wallMs: { p50: 2000, p90: 4000 },
      runs: 2,
    });
    const paused = (status: string) => ({ ...history.runs[0]!, run: status, status, costUsd: 0 });
    assert.equal(
      runTotals({ ...history, runs: [paused('paused'), paused('failed'), paused('asking')] }),
      undefined,
      'a run that paused at the cost gate before its workers is no $0.00 whole run',
    );
    assert.deepEqual(workerCosts(history, 'W.md'), { p50: 0.05, p90: 0.07 });
    assert.equal(workerCosts(history, 'X.md'), undefined);
    assert.equal(runTotals(undefined), undefined);
  });

  it('rounds a budget up to two significant figures', () => {
    assert.equal(budgetFor(0.4012), 0.41);
    assert.equal(budgetFor(0.41), 0.41);
    assert.equal(budgetFor(12.3), 13);
    assert.equal(budgetFor(0.003101), 0.0032);
    assert.equal(budgetFor(1234), 1300);
    assert.equal(budgetFor(0), 0);
  });
});
