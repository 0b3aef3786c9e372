import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { summary } from '../helpers/cli.js';
import { ClaudeSandbox } from '../helpers/claude-sandbox.js';
import { budgetFor } from '../../src/plan/history-figures.js';
import type { WorkflowPlan } from '../../src/plan/workflow-plan.js';

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

describe('raymond plan from the history of real runs', () => {
  it('forecasts within the range of the three runs it learned from, with the loop counted as it ran', async () => {
    const s = box.server;
    // Run k reviews k times: every turn is one API call of the default usage, so run k costs k + 1 units.
    let wanted = 0;
    let reviews = 0;
    s.on('PLAN-START', { text: '<goto>REVIEW</goto>' });
    s.on('PLAN-REVIEW', () =>
      ++reviews < wanted ? { text: '<goto>REVIEW</goto>' } : { text: '<result>ok</result>' },
    );
    const wf = box.write(
      {
        'START.md': 'PLAN-START: plan the change, then <goto>REVIEW</goto>.\n',
        'REVIEW.md': 'PLAN-REVIEW: review it; <goto>REVIEW</goto> again or <result>ok</result>.\n',
      },
      'learned',
    );
    const costs: number[] = [];
    for (const k of [1, 2, 3]) {
      wanted = k;
      reviews = 0;
      const r = await box.run([wf, '--json', '--workflow-id', `learn${k}`]);
      assert.equal(r.code, 0, r.stderr);
      costs.push(summary(r).total_cost_usd);
    }
    const unit = costs[0]! / 2;
    assert.ok(unit > 0);
    costs.forEach((c, i) => assert.ok(Math.abs(c - unit * (i + 2)) < 1e-9, `run ${i + 1}: ${c}`));

    const r = await box.run(['plan', wf, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const plan = JSON.parse(r.stdout) as WorkflowPlan;
    assert.equal(plan.historyRuns, 3);
    assert.equal(plan.run.basis, 'runs');
    const [low, high] = [Math.min(...costs), Math.max(...costs)];
    const { p50, p90 } = plan.run.costUsd;
    assert.ok(
      p50 >= low && p50 <= high && p90! >= p50 && p90! <= high,
      `${p50}–${p90} in ${low}–${high}`,
    );
    assert.ok(Math.abs(p50 - unit * 3) < 1e-9 && Math.abs(p90! - unit * 4) < 1e-9);
    assert.equal(plan.budgetUsd, budgetFor(unit * 4));
    const review = plan.states.find((x) => x.state === 'REVIEW.md')!;
    assert.equal(review.basis, 'history');
    assert.equal(review.samples, 6);
    assert.deepEqual(review.visits, { p50: 2, p90: 3, unbounded: null });
    assert.ok(Math.abs(review.costUsd.p90 - unit) < 1e-9);
    const start = plan.states.find((x) => x.state === 'START.md')!;
    assert.deepEqual([start.basis, start.samples, start.visits.p90], ['history', 3, 1]);
    // The states added up: START once and REVIEW three times at the high end, as the dearest run.
    assert.ok(Math.abs(plan.run.statesSum.costUsd.p90! - unit * 4) < 1e-9);

    const text = await box.run(['plan', wf]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^learned \(.*\): 2 reachable states, history of 3 runs$/m);
    assert.match(text.stdout, /^REVIEW\.md +default +history n=6 +2–3 /m);
    assert.match(text.stdout, /^whole run: \$\S+–\$\S+ \(p50–p90, history of 3 runs\); time /m);
    assert.match(text.stdout, /^budget it would need: \$\S+ \(--budget [\d.]+\)$/m);
  });
});
