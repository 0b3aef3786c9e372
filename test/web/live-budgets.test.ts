import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunEvent } from '../../machines/run-events.js';
import { emptyLiveModel, foldLiveEvent, liveBudgets } from '../../src/web/live-fold.js';

const counts = { idle: 1, invoking: 0, 'awaiting-child': 0, terminated: 0, paused: 0, asking: 0 };
const branch = [{ branch: 'main_w1', usd: 0.5 }];

describe('liveBudgets: spent, reserved and left as the events tell them', () => {
  it('reserves while a step runs, lets go at its end, and counts each branch on its own', () => {
    const m = emptyLiveModel();
    const events: RunEvent[] = [
      {
        type: 'run.started',
        workflowId: 'r',
        workflow: 'wf',
        resumed: false,
        at: 0,
        budgetUsd: 2,
        totalCostUsd: 0,
        counts,
      },
      {
        type: 'agent.forked',
        parentId: 'main',
        id: 'main_w1',
        state: 'W.md',
        attributes: {},
        budgets: branch,
      },
      {
        type: 'agent.forked',
        parentId: 'main',
        id: 'main_w1_x1',
        state: 'W.md',
        attributes: {},
        budgets: branch,
      },
      { type: 'step.started', agentId: 'main_w1', state: 'W.md', reservedUsd: 0.3 },
      { type: 'step.started', agentId: 'main_w1_x1', state: 'W.md', reservedUsd: 0.2 },
    ];
    for (const e of events) foldLiveEvent(m, e);
    assert.deepEqual(liveBudgets(m), {
      run: { budget_usd: 2, spent_usd: 0, reserved_usd: 0.5, left_usd: 1.5 },
      branches: [
        { branch: 'main_w1', budget_usd: 0.5, spent_usd: 0, reserved_usd: 0.5, left_usd: 0 },
      ],
    });
    foldLiveEvent(m, {
      type: 'step.done',
      agentId: 'main_w1',
      from: 'W.md',
      decision: { kind: 'result', payload: 'w' } as never,
      to: null,
      session: 's',
      depth: 0,
      costUsd: 0.25,
      totalCostUsd: 0.25,
      workers: [],
    });
    const after = liveBudgets(m);
    assert.deepEqual(after.run, {
      budget_usd: 2,
      spent_usd: 0.25,
      reserved_usd: 0.2,
      left_usd: 1.55,
    });
    assert.deepEqual(after.branches[0], {
      branch: 'main_w1',
      budget_usd: 0.5,
      spent_usd: 0.25,
      reserved_usd: 0.2,
      left_usd: 0.04999999999999999,
    });
  });

  it('a run with no budget and no branch has none to show', () => {
    assert.deepEqual(liveBudgets(emptyLiveModel()), { branches: [] });
  });
});
