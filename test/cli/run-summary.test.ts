import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { joinFinished, summaryLine, type RunFinished } from '../../src/cli/run-summary.js';
import type { RunProgress } from '../../src/runtime/run-progress.js';

const finished = (over: Partial<RunFinished> = {}): RunFinished => ({
  type: 'run.finished',
  workflowId: 'wf-1',
  status: 'completed',
  totalCostUsd: 0.5,
  steps: 12,
  elapsedMs: 1234,
  ...over,
});
const progress = (over: Partial<RunProgress> = {}): RunProgress => ({
  counts: { idle: 0, invoking: 0, 'awaiting-child': 0, terminated: 4, paused: 0, asking: 0 },
  costUsd: 0.5,
  denials: [],
  budgetUsd: 10,
  startedAt: 0,
  steps: 12,
  failed: 0,
  ...over,
});

describe('the summary line', () => {
  it('says status, steps, time, agents and cost against the budget', () => {
    assert.equal(
      summaryLine(finished(), progress(), false),
      'run wf-1 completed: 12 steps in 1.2s; agents 4 done, 0 failed; cost $0.50 of $10.00',
    );
  });

  it('counts the tool calls the states were denied', () => {
    const denial = { agent: 'main', state: 'START.md', tool: 'Bash', input: { command: 'ls' } };
    assert.equal(
      summaryLine(finished(), progress({ denials: [denial, denial] }), false),
      'run wf-1 completed: 12 steps in 1.2s; agents 4 done, 0 failed; 2 tool calls denied; cost $0.50 of $10.00',
    );
    assert.match(
      summaryLine(finished(), progress({ denials: [denial] }), false),
      /; 1 tool call denied;/,
    );
  });

  it('counts failed, paused and unfinished agents, and says interrupted when the user stopped the run', () => {
    const p = progress({
      counts: { idle: 2, invoking: 1, 'awaiting-child': 5, terminated: 3, paused: 1, asking: 0 },
      failed: 1,
      budgetUsd: 0,
    });
    assert.equal(
      summaryLine(finished({ status: 'running', steps: 1, elapsedMs: 187_000 }), p, true),
      'run wf-1 interrupted: 1 step in 3m07s; agents 2 done, 1 failed, 1 paused, 3 unfinished; cost $0.50 of unlimited',
    );
  });

  it('adds up the parts of a run that waited for a usage limit', () => {
    const joined = joinFinished(
      joinFinished(undefined, finished({ status: 'paused', steps: 2, elapsedMs: 1000 })),
      finished({ steps: 3, elapsedMs: 500, totalCostUsd: 0.7 }),
    );
    assert.deepEqual(joined, finished({ steps: 5, elapsedMs: 1500, totalCostUsd: 0.7 }));
  });
});
