import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CostTable, answeredByText, stateKeyOf } from '../../machines/cost-table.js';

describe('the cost table (history, server and live page alike)', () => {
  it("keys a state by its file, a cross-workflow callee's with its workflow's key", () => {
    assert.equal(stateKeyOf({ state: 'REVIEW.md' }), 'REVIEW.md');
    assert.equal(stateKeyOf({ state: 'FIX.md', scope: 'fixer-1a2b3c4d' }), 'fixer-1a2b3c4d:FIX.md');
  });

  it('sums steps, turns, cost and wall time per name, dearest first, with each share of the total', () => {
    const t = new CostTable();
    t.add('A.md', { turns: 2, costUsd: 0.01, wallMs: 1500 });
    t.add('B.sh', { turns: 0, costUsd: 0, wallMs: 40 });
    t.add('C.md', { turns: 1, costUsd: 0.03, wallMs: 900 });
    t.add('A.md', { turns: 1, costUsd: 0.02, wallMs: 500 });
    assert.equal(t.size, 3);
    const rows = t.rows(0.06);
    assert.deepEqual(
      rows.map((r) => [r.name, r.steps, r.turns, r.wallMs]),
      [
        ['A.md', 2, 3, 2000],
        ['C.md', 1, 1, 900],
        ['B.sh', 1, 0, 40],
      ],
    );
    assert.ok(Math.abs(rows[0]!.costUsd - 0.03) < 1e-12);
    assert.deepEqual(
      rows.map((r) => Math.round(r.share * 100)),
      [50, 50, 0],
    );
    assert.deepEqual(
      t.rows(0).map((r) => r.share),
      [0, 0, 0],
      'a run that cost nothing',
    );
  });

  it("starts again from a snapshot's rows and goes on adding, as if it had seen every step", () => {
    const whole = new CostTable();
    const first = new CostTable();
    const steps = [
      ['A.md', { turns: 1, costUsd: 0.5, wallMs: 10 }],
      ['B.md', { turns: 3, costUsd: 0.25, wallMs: 20 }],
      ['A.md', { turns: 2, costUsd: 0.125, wallMs: 30 }],
    ] as const;
    for (const [name, s] of steps) whole.add(name, s);
    for (const [name, s] of steps.slice(0, 2)) first.add(name, s);
    const restored = new CostTable(first.rows(0.75));
    restored.add(...steps[2]);
    assert.deepEqual(restored.rows(0.875), whole.rows(0.875));
    restored.add('C.md', { turns: 0, costUsd: 0, wallMs: 0 });
    assert.equal(first.size, 2, "the snapshot's table is not changed by the restored one");
  });

  it("counts each row's steps by the model that answered them, and says them most first", () => {
    const t = new CostTable();
    t.add('W.md', { turns: 1, costUsd: 0.01, wallMs: 1, answeredBy: ['claude-sonnet-5-5'] });
    t.add('W.md', { turns: 1, costUsd: 0.01, wallMs: 1, answeredBy: ['claude-haiku-5-5'] });
    t.add('W.md', { turns: 2, costUsd: 0.01, wallMs: 1, answeredBy: ['claude-haiku-5-5'] });
    t.add('S.sh', { turns: 0, costUsd: 0, wallMs: 1 });
    const [w, sh] = t.rows(0.03);
    assert.deepEqual(w!.answeredBy, { 'claude-sonnet-5-5': 1, 'claude-haiku-5-5': 2 });
    assert.equal(answeredByText(w!.answeredBy), 'claude-haiku-5-5 2, claude-sonnet-5-5 1');
    assert.equal(sh!.answeredBy, undefined);
    assert.equal(answeredByText(sh!.answeredBy), '-');
    const again = new CostTable(t.rows(0.03));
    again.add('W.md', { turns: 1, costUsd: 0, wallMs: 1, answeredBy: ['claude-haiku-5-5'] });
    assert.equal(again.rows(0.03)[0]!.answeredBy!['claude-haiku-5-5'], 3);
    assert.equal(
      w!.answeredBy?.['claude-haiku-5-5'],
      2,
      'a snapshot row is not changed by the table made from it',
    );
  });
});
