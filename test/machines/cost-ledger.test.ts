import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { charge, sessionCostsFor } from '../../machines/cost-ledger.js';
import { storeFromState } from '../../machines/run-store.js';
import { freshState } from '../helpers/fake-actors.js';

function store(budget: number) {
  const state = freshState();
  state.options.budget_usd = budget;
  return storeFromState(state);
}

describe('cost ledger', () => {
  it('adds each cost and remembers session totals', () => {
    const s = store(0);
    assert.equal(charge(s, 0.25, { s1: 0.25 }), false);
    assert.equal(charge(s, 0.5, { s1: 0.75, s2: 0.1 }), false);
    assert.equal(s.meta.total_cost_usd, 0.75);
    assert.deepEqual(s.meta.session_costs, { s1: 0.75, s2: 0.1 });
    assert.deepEqual([...s.dirty.sessionCosts].sort(), ['s1', 's2']);
  });

  it('says once that the budget is spent, and the run then says why', () => {
    const s = store(1);
    assert.equal(charge(s, 0.6, undefined), false);
    assert.equal(charge(s, 0.6, undefined), true);
    assert.equal(s.meta.status, 'budget_exceeded');
    assert.match(s.meta.error!, /the budget of \$1\.00 is spent \(\$1\.20\)/);
    assert.equal(charge(s, 0.1, undefined), false, 'already spent: not announced again');
  });

  it('names a budget under a cent as it is, not rounded to $0.00', () => {
    const s = store(0.0001);
    assert.equal(charge(s, 0.00023, undefined), true);
    assert.match(s.meta.error!, /^the budget of \$0\.0001 is spent \(\$0\.00023\)/);
  });

  it('--budget-hard: a step whose turn was stopped at the budget spends it, whatever its charge adds up to', () => {
    const s = store(1);
    assert.equal(charge(s, 0.3, undefined), false);
    assert.equal(charge(s, 0.69, undefined, true), true, 'priced by the table, a little under');
    assert.equal(s.meta.status, 'budget_exceeded');
    assert.match(
      s.meta.error!,
      /^the budget of \$1\.00 is spent: the turns running as it was reached were stopped \(--budget-hard\), their agents paused with their sessions; no new step was started$/,
    );
    const none = store(0);
    assert.equal(charge(none, 5, undefined, true), false, 'no budget: nothing to spend');
  });

  it('a zero budget is unlimited', () => {
    const s = store(0);
    assert.equal(charge(s, 1000, undefined), false);
    assert.equal(s.meta.status, 'running');
  });

  it('hands a step the known totals of the sessions it may continue', () => {
    const s = store(0);
    charge(s, 0, { a: 1, b: 2 });
    assert.deepEqual(sessionCostsFor(s, ['a', null, undefined, 'unknown']), { a: 1 });
  });
});
