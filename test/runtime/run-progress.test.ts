import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunEvent } from '../../machines/run-events.js';
import type { ResolvedDecisionData } from '../../machines/types.js';
import { emptyProgress, trackProgress } from '../../src/runtime/run-progress.js';

const done = (
  agentId: string,
  decision: ResolvedDecisionData,
  to: string | null,
  workers: string[] = [],
  total = 0,
): RunEvent => ({
  type: 'step.done',
  agentId,
  from: 'X',
  decision,
  to,
  session: null,
  depth: 0,
  costUsd: 0,
  totalCostUsd: total,
  workers: workers.map((id) => ({ id, state: 'W', attributes: {} })),
});

describe('run progress from events', () => {
  it('counts a cost gate asked again as still asking, and one that went on with its forked workers', () => {
    const p = emptyProgress();
    const counts = {
      idle: 0,
      invoking: 0,
      'awaiting-child': 0,
      terminated: 0,
      paused: 0,
      asking: 1,
    };
    trackProgress(p, {
      type: 'run.started',
      workflowId: 'wf',
      workflow: 'wf',
      resumed: true,
      at: 5,
      budgetUsd: 2,
      totalCostUsd: 0,
      counts,
    });
    const answered = (gate: { again: boolean; workers: number; joining: boolean }): RunEvent => ({
      type: 'ask.answered',
      agentId: 'main',
      askId: 'ask_main_1',
      expired: false,
      text: 'x',
      gate,
    });
    trackProgress(p, answered({ again: true, workers: 0, joining: false }));
    assert.equal(p.counts.asking, 1);
    trackProgress(p, answered({ again: false, workers: 50, joining: true }));
    assert.deepEqual(p.counts, { ...counts, asking: 0, idle: 50, 'awaiting-child': 1 });
  });

  it('counts frames per machine state through fork, call, result and failures', () => {
    const p = emptyProgress();
    const events: RunEvent[] = [
      {
        type: 'run.started',
        workflowId: 'wf',
        workflow: 'wf',
        resumed: false,
        at: 5,
        budgetUsd: 2,
        totalCostUsd: 0,
        counts: { idle: 1, invoking: 0, 'awaiting-child': 0, terminated: 0, paused: 0, asking: 0 },
      },
      { type: 'step.started', agentId: 'main', state: 'START' },
      done('main', { kind: 'fork', next: 'END', workers: [] }, 'END', ['w1', 'w2']),
      { type: 'step.started', agentId: 'w1', state: 'W' },
      done('w1', { kind: 'call', target: 'C', returnTo: 'B' }, 'C'),
      { type: 'step.started', agentId: 'w1', state: 'C' },
    ];
    for (const e of events) trackProgress(p, e);
    assert.deepEqual(p.counts, {
      idle: 2,
      invoking: 1,
      'awaiting-child': 1,
      terminated: 0,
      paused: 0,
      asking: 0,
    });
    for (const e of [
      done('w1', { kind: 'result', payload: 'r' }, 'B', [], 0.5),
      { type: 'step.started', agentId: 'w2', state: 'W' },
      {
        type: 'agent.paused',
        agentId: 'w2',
        state: 'W',
        failure: {
          kind: 'step-failure',
          code: 'ERR_USAGE_LIMIT',
          message: 'x',
          pauses: true,
          spentUsd: 0,
          sessionCosts: {},
        },
        totalCostUsd: 0.75,
      },
      { type: 'step.started', agentId: 'main', state: 'END' },
      done('main', { kind: 'result', payload: 'done' }, null, [], 1),
    ] satisfies RunEvent[])
      trackProgress(p, e);
    assert.deepEqual(p.counts, {
      idle: 1,
      invoking: 0,
      'awaiting-child': 0,
      terminated: 1,
      paused: 1,
      asking: 0,
    });
    assert.equal(p.steps, 4);
    assert.equal(p.costUsd, 1);
    assert.equal(p.budgetUsd, 2);
    assert.equal(p.startedAt, 5);
  });

  it('counts failed agents among the terminated, and starts over on a resume', () => {
    const p = emptyProgress();
    const failure = {
      kind: 'step-failure',
      code: 'ERR_SCRIPT_FAILED',
      message: 'x',
      pauses: false,
      spentUsd: 0,
      sessionCosts: {},
    } as const;
    const start = (resumed: boolean): RunEvent => ({
      type: 'run.started',
      workflowId: 'wf',
      workflow: 'wf',
      resumed,
      at: 1,
      budgetUsd: 0,
      totalCostUsd: 0,
      counts: { idle: 1, invoking: 0, 'awaiting-child': 0, terminated: 2, paused: 0, asking: 0 },
    });
    for (const e of [
      start(false),
      { type: 'step.started', agentId: 'main', state: 'S' },
      { type: 'agent.failed', agentId: 'main', state: 'S', failure, totalCostUsd: 0 },
    ] satisfies RunEvent[])
      trackProgress(p, e);
    assert.equal(p.failed, 1);
    assert.equal(p.counts.terminated, 3);
    trackProgress(p, start(true));
    assert.equal(p.failed, 0, 'a resume runs the failed agent again');
  });
});

describe('trackProgress: asks', () => {
  it('counts an agent waiting for an answer as asking, and as idle again once answered or timed out', () => {
    const p = emptyProgress(0);
    const counts = {
      idle: 1,
      invoking: 0,
      'awaiting-child': 0,
      terminated: 0,
      paused: 0,
      asking: 0,
    };
    trackProgress(p, {
      type: 'run.started',
      workflowId: 'wf',
      workflow: 'wf',
      resumed: false,
      at: 0,
      budgetUsd: 0,
      totalCostUsd: 0,
      counts,
    });
    trackProgress(p, { type: 'step.started', agentId: 'main', state: 'START.sh' });
    trackProgress(p, {
      type: 'step.done',
      agentId: 'main',
      from: 'START.sh',
      decision: {
        kind: 'ask',
        next: 'DO.sh',
        prompt: 'ok?',
        ask: {
          id: 'ask_main_1',
          prompt: 'ok?',
          created_at: '2026-01-01T00:00:00.000Z',
          next: 'DO.sh',
        },
      },
      to: 'START.sh',
      session: null,
      depth: 0,
      costUsd: 0,
      totalCostUsd: 0,
      workers: [],
    });
    assert.deepEqual([p.counts.idle, p.counts.asking], [0, 1]);
    trackProgress(p, {
      type: 'ask.answered',
      agentId: 'main',
      askId: 'ask_main_1',
      expired: false,
    });
    assert.deepEqual([p.counts.idle, p.counts.asking], [1, 0]);
  });
});
