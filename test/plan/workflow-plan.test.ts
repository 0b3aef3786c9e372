import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { loadWorkflowGraph } from '../../src/analysis/workflow-graph.js';
import { createForecaster } from '../../src/plan/forecaster.js';
import { forecastLine } from '../../src/plan/forecast-line.js';
import { buildPlanGraph } from '../../src/plan/plan-graph.js';
import { statePrior } from '../../src/plan/state-prior.js';
import { planWorkflow } from '../../src/plan/workflow-plan.js';
import type { WorkflowHistory } from '../../src/history/history-types.js';
import { Sandbox } from '../helpers/cli.js';
import { LOOPING_WORKFLOW, stateHistory, workflowHistory } from '../helpers/plan-fixtures.js';

const box = new Sandbox();
after(() => box.remove());

async function plan(history?: WorkflowHistory) {
  const graph = buildPlanGraph([
    { graph: await loadWorkflowGraph(box.write(LOOPING_WORKFLOW, 'loop')) },
  ]);
  const forecaster = createForecaster({ graph, ...(history ? { history } : {}) });
  return { graph, plan: planWorkflow(graph, forecaster, history) };
}

describe('workflow plan', () => {
  it('without history: the reachable states nearest first, guesses, and an unbounded high figure for the loop and the workers', async () => {
    const { graph, plan: p } = await plan();
    assert.deepEqual(
      p.states.map((s) => [s.state, s.basis, s.visits.unbounded]),
      [
        ['START.md', 'guess', null],
        ['WORKER.md', 'guess', 'fork'],
        ['WAIT.sh', 'free', null],
        ['REVIEW.md', 'guess', 'loop'],
        ['REVISE.md', 'guess', 'loop'],
      ],
    );
    assert.deepEqual(p.states[0]!.forks, { seen: [], p50: null, p90: null });
    assert.equal(p.run.basis, 'states');
    assert.equal(p.run.costUsd.p90, null);
    assert.equal(p.budgetUsd, null);
    const prior = (f: string) => statePrior(graph.states.get(f)!.node).forecast.p50Usd;
    const expected = ['START.md', 'WORKER.md', 'REVIEW.md', 'REVISE.md'].reduce(
      (a, f) => a + prior(f),
      0,
    );
    assert.ok(Math.abs(p.run.costUsd.p50 - expected) < 1e-12, 'p50: each state once');
    assert.deepEqual(p.run.unbounded, [
      'WORKER.md (once per forked worker, never seen run)',
      'REVIEW.md (a loop, never seen run)',
      'REVISE.md (a loop, never seen run)',
    ]);
    assert.match(
      forecastLine(p, 10),
      /^forecast: \$0\.\d+–unbounded \(a guess: no history; WORKER\.md, REVIEW\.md, REVISE\.md never seen run\); budget \$10\.00$/,
    );
  });

  it('with history: the runs’ totals give the range and the budget; the states’ figures add up by their visits', async () => {
    const history = workflowHistory(
      [
        stateHistory('START.md', {
          costs: [0.1, 0.1, 0.1],
          walls: [1000, 1000, 1000],
          widths: [2, 3, 5],
        }),
        stateHistory('WORKER.md', {
          costs: Array(10).fill(0.02),
          walls: Array(10).fill(500),
          visits: [2, 3, 5],
        }),
        stateHistory('WAIT.sh', { costs: [0, 0, 0], walls: [10, 10, 10], backend: 'script' }),
        stateHistory('REVIEW.md', {
          costs: [0.05, 0.05, 0.05, 0.05],
          walls: [1, 1, 1, 1],
          visits: [1, 1, 2],
        }),
        stateHistory('REVISE.md', { costs: [0.2], walls: [1], visits: [1] }),
      ],
      { runCosts: [0.3, 0.45, 0.41] },
    );
    const { plan: p } = await plan(history);
    assert.equal(p.historyRuns, 3);
    assert.equal(p.run.basis, 'runs');
    assert.deepEqual(p.run.costUsd, { p50: 0.41, p90: 0.45 });
    assert.equal(p.budgetUsd, 0.45);
    const start = p.states.find((s) => s.state === 'START.md')!;
    assert.deepEqual(start.forks, { seen: [2, 3, 5], p50: 3, p90: 5 });
    assert.equal(start.basis, 'history');
    assert.equal(start.samples, 3);
    const worker = p.states.find((s) => s.state === 'WORKER.md')!;
    assert.deepEqual(worker.visits, { p50: 3, p90: 5, unbounded: null });
    // p90: START 0.1 + WORKER 0.02 × 5 + REVIEW 0.05 × 2 + REVISE 0.2 × 1.
    assert.ok(Math.abs(p.run.statesSum.costUsd.p90! - 0.5) < 1e-9);
    assert.equal(forecastLine(p, 0), 'forecast: $0.41–$0.45 (history of 3 runs); no budget');
  });
});
