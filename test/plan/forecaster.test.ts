import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { loadWorkflowGraph } from '../../src/analysis/workflow-graph.js';
import { createForecaster } from '../../src/plan/forecaster.js';
import { reservations } from '../../src/runtime/cost-gate.js';
import { buildPlanGraph } from '../../src/plan/plan-graph.js';
import { statePrior } from '../../src/plan/state-prior.js';
import { Sandbox, sh } from '../helpers/cli.js';
import { LOOPING_WORKFLOW, stateHistory, workflowHistory } from '../helpers/plan-fixtures.js';

const box = new Sandbox();
after(() => box.remove());

async function looping() {
  return buildPlanGraph([{ graph: await loadWorkflowGraph(box.write(LOOPING_WORKFLOW, 'loop')) }]);
}

describe('forecaster', () => {
  it('forecasts a step from the state’s history when it has one, else from the prior; scripts are free', async () => {
    const graph = await looping();
    const history = workflowHistory([
      stateHistory('REVIEW.md', { costs: [0.1, 0.2, 0.3], walls: [1000, 2000, 3000] }),
    ]);
    const f = createForecaster({ graph, history });
    assert.deepEqual(f.step(undefined, 'REVIEW.md'), {
      p50Usd: 0.2,
      p90Usd: 0.3,
      p50Ms: 2000,
      p90Ms: 3000,
      basis: 'history',
    });
    const revise = f.step(undefined, 'REVISE.md');
    assert.equal(revise.basis, 'guess');
    assert.deepEqual(revise, statePrior(graph.states.get('REVISE.md')!.node).forecast);
    assert.equal(f.step(undefined, 'WAIT.sh').basis, 'free');
    assert.equal(f.step(undefined, 'WAIT.sh').p90Usd, 0);
  });

  it("gives a state's budget: to the budget's reservations, which reserve min(p90, budget:)", async () => {
    const graph = buildPlanGraph([
      {
        graph: await loadWorkflowGraph(
          box.write(
            {
              'START.md': 'Work. <goto>CAPPED.md</goto>\n',
              'CAPPED.md': '---\nbudget: 0.01\n---\nWork within a cent. <result>ok</result>\n',
            },
            'capped',
          ),
        ),
      },
    ]);
    const f = createForecaster({ graph });
    assert.equal(f.budgetOf(undefined, 'CAPPED.md'), 0.01);
    assert.equal(f.budgetOf(undefined, 'START.md'), undefined);
    const reserve = reservations(f);
    const prior = f.step(undefined, 'CAPPED.md').p90Usd;
    assert.ok(prior > 0.01, `the prior's p90 ${prior} is above the cap`);
    assert.deepEqual(reserve(undefined, 'CAPPED.md'), {
      p90Usd: prior,
      fromHistory: false,
      capUsd: 0.01,
    });
    assert.equal('capUsd' in reserve(undefined, 'START.md'), false);
  });

  it('forecasts a worker from what workers starting there cost, else the sum of the states it reaches', async () => {
    const graph = await looping();
    const none = createForecaster({ graph });
    const worker = none.worker(undefined, 'WORKER.md');
    assert.deepEqual(worker, statePrior(graph.states.get('WORKER.md')!.node).forecast);
    const seen = createForecaster({
      graph,
      history: workflowHistory([], { workers: { 'WORKER.md': [0.01, 0.02, 0.04] } }),
    });
    assert.equal(seen.worker(undefined, 'WORKER.md').p50Usd, 0.02);
    assert.equal(seen.worker(undefined, 'WORKER.md').p90Usd, 0.04);
    assert.equal(seen.worker(undefined, 'WORKER.md').basis, 'history');
  });

  it('says a worker is unbounded when a paid state of its life loops, and not when only scripts loop', async () => {
    const dir = box.write(
      {
        'START.sh': sh('echo \'<fork next="END">W</fork>\''),
        'END.sh': sh("echo '<result>ok</result>'"),
        'W.md': 'Try. <goto>CHECK</goto>\n',
        'CHECK.md': 'Check. <goto>W</goto> or <result>ok</result>\n',
        'S.sh': sh("echo '<goto>S2</goto>'"),
        'S2.sh': sh("echo '<goto>S</goto>'"),
      },
      'loops',
    );
    const graph = buildPlanGraph([{ graph: await loadWorkflowGraph(dir) }]);
    const f = createForecaster({ graph });
    assert.equal(f.worker(undefined, 'W.md').unbounded, true);
    assert.equal(f.worker(undefined, 'S.sh').unbounded, undefined);
    assert.equal(f.worker(undefined, 'S.sh').basis, 'free');
  });

  it('finds a callee’s states by its history key or by another name of its scope', async () => {
    const main = box.write({ 'START.sh': sh("echo '<result>x</result>'") }, 'main');
    const callee = box.write({ 'START.md': 'Callee. <result>x</result>\n' }, 'callee');
    const graph = buildPlanGraph([
      { graph: await loadWorkflowGraph(main) },
      { scope: 'callee-1234abcd', graph: await loadWorkflowGraph(callee) },
    ]);
    const history = workflowHistory([
      stateHistory('callee-1234abcd:START.md', { costs: [0.5], walls: [100] }),
    ]);
    const f = createForecaster({
      graph,
      history,
      scopeAliases: new Map([[callee, 'callee-1234abcd']]),
    });
    assert.equal(f.step('callee-1234abcd', 'START.md').p50Usd, 0.5);
    assert.equal(f.step(callee, 'START.md').p50Usd, 0.5);
    assert.equal(f.step(undefined, 'START.sh').basis, 'free');
  });

  it('guesses a state the workflow no longer has from its file name', async () => {
    const f = createForecaster({ graph: await looping() });
    assert.equal(f.step(undefined, 'GONE.sh').basis, 'free');
    assert.equal(f.step(undefined, 'GONE.md').basis, 'guess');
    assert.ok(f.step(undefined, 'GONE.md').p50Usd > 0);
  });
});
