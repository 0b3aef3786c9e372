import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  chargeBranches,
  clearReservations,
  createBudgetLine,
  reservationOf,
  GUESS_RESERVE_FACTOR,
  reserve,
  settle,
} from '../../machines/budget-line.js';
import type { AgentRecord } from '../../machines/types.js';
import { freshState, runFake } from '../helpers/fake-actors.js';

describe('budget line: reserve before a step starts', () => {
  it('a step starts only if spent + reserved + its own reservation stays within the budget', () => {
    const line = createBudgetLine();
    const step = (agentId: string, usd = 0.03) => ({ agentId, key: ':W.md', usd });
    assert.equal(reserve(line, 0.1, 0, step('a')).kind, 'go');
    assert.equal(reserve(line, 0.1, 0, step('b')).kind, 'go');
    assert.equal(reserve(line, 0.1, 0, step('c')).kind, 'go');
    assert.equal(reserve(line, 0.1, 0, step('d')).kind, 'wait', '0.12 would pass 0.10');
    settle(line, 'a', 0.05);
    assert.equal(line.reservedUsd, 0.06);
    assert.equal(reserve(line, 0.1, 0.05, step('d')).kind, 'wait', '0.05 + 0.06 + 0.03 > 0.10');
    settle(line, 'b', 0.01);
    settle(line, 'c', 0.01);
    assert.equal(line.reservedUsd, 0);
    assert.equal(reserve(line, 0.1, 0.07, step('d')).kind, 'go');
  });

  it('with no paid step running, one starts while the money spent is under the budget', () => {
    const line = createBudgetLine();
    const big = { agentId: 'a', key: ':W.md', usd: 5 };
    assert.equal(reserve(line, 1, 0.5, big).kind, 'go', 'alone, under the budget');
    assert.equal(reserve(line, 1, 0.5, { ...big, agentId: 'b' }).kind, 'wait');
    settle(line, 'a', 0.6);
    assert.equal(reserve(line, 1, 1, { ...big, agentId: 'b' }).kind, 'wait', 'the budget is spent');
    assert.equal(reserve(line, 0, 1000, { ...big, agentId: 'c' }).kind, 'go', 'no budget');
  });

  it('reserves the history p90, the dearest step seen this run if dearer, else thrice the prior until a step ended', () => {
    const line = createBudgetLine();
    assert.equal(
      reservationOf(line, ':W.md', { p90Usd: 0.3, fromHistory: false }),
      0.3 * GUESS_RESERVE_FACTOR,
    );
    assert.equal(reservationOf(line, ':W.md', { p90Usd: 0.02, fromHistory: true }), 0.02);
    reserve(line, 1, 0, { agentId: 'a', key: ':W.md', usd: 0.3 });
    settle(line, 'a', 0.05);
    assert.equal(reservationOf(line, ':W.md', { p90Usd: 0.3, fromHistory: false }), 0.05);
    assert.equal(reservationOf(line, ':W.md', { p90Usd: 0.02, fromHistory: true }), 0.05);
    assert.equal(reservationOf(line, ':W.md', undefined), 0.05);
    assert.equal(reservationOf(line, ':OTHER.md', undefined), 0);
    reserve(line, 1, 0, { agentId: 'b', key: ':W.md', usd: 0.05 });
    clearReservations(line);
    assert.equal(line.held.size + line.reservedUsd, 0);
  });

  it('under a budget of a few guesses, runs one step of a guessed state first, and keeps B plus one turn', () => {
    // The bench's shape: the prior's p90 is $0.1727, a 4-message turn costs $0.328, the budget is $0.82.
    const line = createBudgetLine();
    const guess = { p90Usd: 0.1727, fromHistory: false };
    const budget = 0.82;
    const turn = 0.328;
    let spent = 0;
    let turns = 0;
    const pending = Array.from({ length: 20 }, (_, i) => `w${i}`);
    const running: string[] = [];
    while (pending.length > 0 || running.length > 0) {
      while (pending.length > 0) {
        const usd = reservationOf(line, ':W.md', guess);
        if (reserve(line, budget, spent, { agentId: pending[0]!, key: ':W.md', usd }).kind !== 'go')
          break;
        running.push(pending.shift()!);
      }
      if (running.length === 0) break;
      if (turns === 0)
        assert.equal(running.length, 1, 'the first turn of a guessed state runs alone');
      settle(line, running.shift()!, turn);
      spent += turn;
      turns++;
    }
    assert.equal(turns, 3, 'three turns: the third started alone under the budget');
    assert.ok(spent <= budget + turn, `$${spent} is within the budget plus one turn`);
  });

  it("reserves no more than the state's budget: (a visit is stopped there), whatever the forecast or the run saw", () => {
    const line = createBudgetLine();
    const capped = (p90Usd: number, fromHistory: boolean) => ({ p90Usd, fromHistory, capUsd: 0.1 });
    assert.equal(reservationOf(line, ':C.md', capped(0.4, false)), 0.1, 'the prior over the cap');
    assert.equal(reservationOf(line, ':C.md', capped(0.4, true)), 0.1, 'the history over the cap');
    assert.equal(reservationOf(line, ':C.md', capped(0.02, true)), 0.02, 'under the cap: the p90');
    // A visit stopped at its cap costs it plus the message that crossed it: the next steps still reserve the cap.
    reserve(line, 1, 0, { agentId: 'a', key: ':C.md', usd: 0.1 });
    settle(line, 'a', 0.13);
    assert.equal(reservationOf(line, ':C.md', capped(0.02, true)), 0.1);
    assert.equal(
      reservationOf(line, ':C.md', { p90Usd: 0.02, fromHistory: true }),
      0.13,
      'uncapped',
    );
  });
});

describe('budget line: branch budgets', () => {
  const branch = [{ branch: 'main_w1', usd: 0.1 }];
  it("a branch's steps reserve against the branch as well as the run; a spent branch refuses its steps", () => {
    const line = createBudgetLine();
    const step = (agentId: string, budgets = branch) => ({
      agentId,
      key: ':W.md',
      usd: 0.04,
      budgets,
    });
    assert.equal(reserve(line, 0, 0, step('main_w1')).kind, 'go');
    assert.equal(reserve(line, 0, 0, step('main_w1_w1')).kind, 'go');
    assert.equal(
      reserve(line, 0, 0, step('main_w1_w2')).kind,
      'wait',
      '0.12 would pass the branch',
    );
    assert.equal(reserve(line, 0, 0, step('main_w2', [])).kind, 'go', 'another branch is not held');
    settle(line, 'main_w1', 0.06);
    chargeBranches(line, branch, 0.06);
    settle(line, 'main_w1_w1', 0.05);
    chargeBranches(line, branch, 0.05);
    assert.deepEqual(reserve(line, 0, 0.11, step('main_w1_w2')), {
      kind: 'refuse',
      branch: 'main_w1',
      budgetUsd: 0.1,
      spentUsd: 0.11,
    });
  });

  it('a resumed run starts each branch at what its agents spent', () => {
    const line = createBudgetLine([
      { cost_usd: 0.07, budgets: branch } as never,
      { cost_usd: 0.05, budgets: branch } as never,
      { cost_usd: 1 } as never,
    ]);
    assert.ok(Math.abs(line.branches.get('main_w1')!.spentUsd - 0.12) < 1e-12);
    assert.equal(
      reserve(line, 0, 0, { agentId: 'x', key: ':W.md', usd: 0, budgets: branch }).kind,
      'refuse',
    );
  });
});

describe('supervisor: a budget that holds at width', () => {
  const workers = Array.from({ length: 10 }, (_, i) => ({
    target: 'W.md',
    attributes: { n: String(i) },
  }));
  const fan = {
    START: { kind: 'fork' as const, next: 'END', workers },
    'W.md': { kind: 'result' as const, payload: 'w' },
    END: { kind: 'result' as const, payload: 'e' },
  };
  const markdownAt = (usd: number) => (r: AgentRecord) => (r.state.endsWith('.md') ? usd : 0);
  const budgeted = (usd: number) => {
    const state = freshState();
    state.options.budget_usd = usd;
    return state;
  };

  it('10 workers at --max-parallel 10, each $0.055, budget $0.06: ends within the budget plus one step', async () => {
    const run = await runFake(fan, {
      state: budgeted(0.06),
      maxParallel: 10,
      cost: markdownAt(0.055),
      reserve: () => ({ p90Usd: 0.055, fromHistory: true }),
    });
    assert.equal(run.output.status, 'budget_exceeded');
    const paid = run.started.filter((s) => s.endsWith('W.md')).length;
    // The first alone, then (0.055 + 0.055 > 0.06) the second alone once it ended; then the budget is spent.
    assert.equal(paid, 2, `steps of W.md: ${paid}`);
    assert.match(
      run.output.error ?? '',
      /is spent \(\$0\.11\); no new step was started; the 8 markdown steps waiting would need about \$0\.44 more/,
    );
    assert.ok(
      run.store.meta.total_cost_usd <= 0.06 + 0.055 + 1e-9,
      `${run.store.meta.total_cost_usd}`,
    );
  });

  it('without reservations (no forecast) every worker starts at once, as before', async () => {
    const run = await runFake(fan, { state: budgeted(0.06), maxParallel: 10, cost: 0.055 });
    assert.equal(run.started.filter((s) => s.endsWith('W.md')).length, 10);
  });

  it('a budget that is not reached does not hold anyone back', async () => {
    const run = await runFake(fan, {
      state: budgeted(10),
      maxParallel: 10,
      cost: 0.055,
      reserve: () => ({ p90Usd: 0.055, fromHistory: true }),
    });
    assert.equal(run.output.status, 'completed');
    assert.equal(run.maxRunning, 10);
  });

  it('a branch out of money fails its worker alone: the join gets its error and spend, the parent completes', async () => {
    const run = await runFake(
      {
        START: {
          kind: 'fork',
          next: 'END',
          join: true,
          workers: [
            { target: 'LOOP.md', attributes: { n: '1' }, budget: 0.1 },
            { target: 'ONCE.md', attributes: { n: '2' } },
          ],
        },
        'LOOP.md': { kind: 'goto', target: 'LOOP.md' },
        'ONCE.md': { kind: 'result', payload: 'once' },
        END: (r) => ({ kind: 'result', payload: r.input ?? '' }),
      },
      {
        maxParallel: 4,
        cost: markdownAt(0.06),
        reserve: () => ({ p90Usd: 0.06, fromHistory: true }),
      },
    );
    assert.equal(run.output.status, 'completed');
    const joined = JSON.parse(run.store.meta.results.main!) as Array<{
      agent: string;
      status: string;
      error?: string;
      cost_usd: number;
    }>;
    const loop = joined.find((j) => j.status === 'failed')!;
    assert.match(loop.error!, /budget: its budget of \$0\.10 is spent \(\$0\.12\)/);
    assert.ok(Math.abs(loop.cost_usd - 0.12) < 1e-9, `${loop.cost_usd}`);
    assert.equal(joined.find((j) => j.status === 'completed')?.cost_usd, 0.06);
    assert.equal(
      run.started.filter((s) => s.endsWith('LOOP.md')).length,
      3,
      'two paid steps, then the refused one',
    );
  });
});
