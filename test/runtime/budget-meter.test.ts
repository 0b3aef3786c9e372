import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunEvent } from '../../machines/run-events.js';
import { BudgetMeter, budgetMeterFor, type BudgetStop } from '../../src/runtime/budget-meter.js';

/** The supervisor's event for a step of `agentId` that was charged, bringing the run to `totalCostUsd`. */
const done = (agentId: string, totalCostUsd: number): RunEvent => ({
  type: 'step.done',
  agentId,
  from: 'START.md',
  decision: { kind: 'result', value: 'x' } as never,
  to: null,
  session: null,
  depth: 0,
  costUsd: 0,
  totalCostUsd,
  workers: [],
});

describe('BudgetMeter', () => {
  it('stops a turn whose streamed cost takes the run to its budget, with words naming it', () => {
    const m = new BudgetMeter(1, 0.5);
    const t = m.turn('main')!;
    t.spent(0.2);
    assert.equal(t.signal.aborted, false);
    t.spent(0.49);
    assert.equal(t.signal.aborted, false, '$0.99: under the budget');
    t.spent(0.5);
    assert.equal(t.signal.aborted, true);
    assert.match(
      (t.signal.reason as BudgetStop).message,
      /^stopped by --budget-hard: the run's cost reached its budget of \$1\.00 \(\$1\.00 with the turns running\)/,
    );
  });

  it('counts every running turn: the one that crosses the line stops the others too', () => {
    const m = new BudgetMeter(1, 0);
    const a = m.turn('a')!;
    const b = m.turn('b')!;
    const c = m.turn('c')!;
    a.spent(0.3);
    b.spent(0.3);
    c.spent(0.3);
    assert.ok(![a, b, c].some((t) => t.signal.aborted));
    b.spent(0.45);
    assert.ok(
      [a, b, c].every((t) => t.signal.aborted),
      'the next messages of a and c would only pass it further',
    );
    assert.ok(Math.abs(m.spentUsd - 1.05) < 1e-12);
  });

  it("keeps an ended turn's cost until its step is charged, then takes the run's total from the event", () => {
    const m = new BudgetMeter(1, 0);
    const a = m.turn('a')!;
    a.spent(0.4);
    a.end(0.45);
    assert.ok(Math.abs(m.spentUsd - 0.45) < 1e-12, 'ended, not yet charged');
    const b = m.turn('b')!;
    b.spent(0.5);
    assert.equal(b.signal.aborted, false);
    m.event(done('a', 0.45));
    assert.ok(Math.abs(m.spentUsd - 0.95) < 1e-12, 'charged once, not twice');
    b.spent(0.56);
    assert.equal(b.signal.aborted, true);
  });

  it("adds a step's turns (a retry, a reminder) until the step is charged", () => {
    const m = new BudgetMeter(1, 0);
    const first = m.turn('a')!;
    first.spent(0.3);
    first.end(0.3);
    const second = m.turn('a')!;
    second.spent(0.6);
    assert.equal(second.signal.aborted, false);
    second.spent(0.7);
    assert.equal(second.signal.aborted, true, '0.3 + 0.7');
  });

  it('stops at once a turn that starts once the budget is reached', () => {
    const m = new BudgetMeter(1, 0);
    m.event(done('a', 1.2));
    const t = m.turn('b')!;
    assert.equal(t.signal.aborted, true);
  });

  it("takes the run's total from a paused or failed agent's event too, and ignores a cost that does not grow", () => {
    const m = new BudgetMeter(1, 0);
    const t = m.turn('a')!;
    t.spent(0.5);
    t.spent(0.2);
    t.spent(Number.NaN);
    assert.ok(Math.abs(m.spentUsd - 0.5) < 1e-12);
    m.event({
      type: 'agent.paused',
      agentId: 'a',
      state: 'START.md',
      failure: {} as never,
      totalCostUsd: 0.6,
    });
    assert.ok(Math.abs(m.spentUsd - 0.6) < 1e-12);
    t.spent(5);
    assert.ok(Math.abs(m.spentUsd - 0.6) < 1e-12, 'a charged step no longer counts');
  });

  it('is made only with --budget-hard; without a run budget it watches only turns that spend against a branch', () => {
    assert.ok(budgetMeterFor({ budgetHard: true, budgetUsd: 2 }, 0) instanceof BudgetMeter);
    assert.equal(budgetMeterFor({ budgetHard: false, budgetUsd: 2 }, 0), undefined);
    const branchesOnly = budgetMeterFor({ budgetHard: true, budgetUsd: 0 }, 0)!;
    assert.equal(branchesOnly.turn('main'), undefined, 'nothing to hold: no stream to watch');
    assert.ok(branchesOnly.turn('w1', [{ branch: 'w1', usd: 1 }]));
  });
});

describe('BudgetMeter: branch budgets (--budget-hard with <fork budget> / --budget-per-agent)', () => {
  const W1 = [{ branch: 'w1', usd: 1 }];
  const stopOf = (t: { signal: AbortSignal }) => t.signal.reason as BudgetStop;

  it("stops the turns of a branch whose streamed cost reaches the branch's budget, and only those, with ERR_BRANCH_BUDGET", () => {
    const m = new BudgetMeter(0, 0);
    const head = m.turn('w1', W1)!;
    // A worker w1 forked: it spends against w1's branch and its own.
    const child = m.turn('w1.1', [...W1, { branch: 'w1.1', usd: 5 }])!;
    const other = m.turn('w2', [{ branch: 'w2', usd: 1 }])!;
    head.spent(0.5);
    child.spent(0.4);
    other.spent(0.9);
    assert.ok(![head, child, other].some((t) => t.signal.aborted), '$0.90 in w1: under');
    child.spent(0.5);
    assert.equal(head.signal.aborted, true);
    assert.equal(child.signal.aborted, true);
    assert.equal(other.signal.aborted, false, "another branch's turn goes on");
    assert.equal(stopOf(child).code, 'ERR_BRANCH_BUDGET');
    assert.match(
      stopOf(head).message,
      /^budget: stopped by --budget-hard: branch w1's budget of \$1\.00 is spent \(\$1\.00 with its turns running\)/,
    );
    assert.ok(Math.abs(m.branchSpentUsd('w1') - 1) < 1e-12);
    assert.ok(Math.abs(m.branchSpentUsd('w1.1') - 0.5) < 1e-12);
  });

  it("counts a branch's charged steps (from the events, and a resume's agents) with its running turns", () => {
    const m = new BudgetMeter(0, 0, [{ budgets: W1, cost_usd: 0.3 }, { cost_usd: 7 }]);
    const t = m.turn('w1', W1)!;
    t.spent(0.2);
    t.end(0.25);
    m.event({
      type: 'step.done',
      agentId: 'w1',
      from: 'LOOP.md',
      decision: { kind: 'goto' } as never,
      to: 'LOOP.md',
      session: null,
      depth: 0,
      costUsd: 0.25,
      totalCostUsd: 7.55,
      workers: [],
    });
    assert.ok(Math.abs(m.branchSpentUsd('w1') - 0.55) < 1e-12, 'charged once: 0.3 + 0.25');
    const next = m.turn('w1', W1)!;
    next.spent(0.44);
    assert.equal(next.signal.aborted, false);
    next.spent(0.45);
    assert.equal(next.signal.aborted, true);
    assert.equal(stopOf(next).code, 'ERR_BRANCH_BUDGET');
    // A failed step is charged what its turns spent.
    m.event({
      type: 'agent.failed',
      agentId: 'w1',
      state: 'LOOP.md',
      failure: {} as never,
      totalCostUsd: 8,
      worker: true,
    });
    assert.ok(Math.abs(m.branchSpentUsd('w1') - 1) < 1e-12);
    assert.equal(
      m.turn('w1', W1)!.signal.aborted,
      true,
      'a turn of a spent branch is stopped at once',
    );
  });

  it("the run's budget reached first: every turn is stopped with ERR_BUDGET (the agents pause)", () => {
    const m = new BudgetMeter(1, 0);
    const a = m.turn('w1', W1)!;
    const b = m.turn('main')!;
    b.spent(0.6);
    a.spent(0.5);
    assert.equal(stopOf(a).code, 'ERR_BUDGET');
    assert.equal(stopOf(b).code, 'ERR_BUDGET');
  });
});
