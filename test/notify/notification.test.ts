import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunEvent } from '../../machines/run-events.js';
import { runNotification, type NotifiedRun } from '../../src/notify/notification.js';

type RunFinished = Extract<RunEvent, { type: 'run.finished' }>;

const at = new Date('2025-01-02T03:04:05.000Z');
const run: NotifiedRun = {
  runId: 'fix-1a2b3c4d',
  workflow: 'fix',
  name: 'nightly',
  resume: 'raymond --resume fix-1a2b3c4d',
};
const finished = (status: RunFinished['status'], error?: string): RunFinished => ({
  type: 'run.finished',
  workflowId: 'fix-1a2b3c4d',
  status,
  error,
  totalCostUsd: 0.25,
  steps: 3,
  elapsedMs: 10,
});

describe('runNotification: the end of a run as the JSON hooks receive', () => {
  it('run.completed carries the results and no resume command', () => {
    assert.deepEqual(runNotification(finished('completed'), run, { main: 'done' }, at), {
      event: 'run.completed',
      at: '2025-01-02T03:04:05.000Z',
      run_id: 'fix-1a2b3c4d',
      workflow: 'fix',
      name: 'nightly',
      status: 'completed',
      total_cost_usd: 0.25,
      results: { main: 'done' },
    });
  });

  it('run.failed carries the error and the command that resumes the run', () => {
    const n = runNotification(finished('failed', 'START.sh: exited with code 3'), run, {}, at);
    assert.deepEqual(n, {
      event: 'run.failed',
      at: '2025-01-02T03:04:05.000Z',
      run_id: 'fix-1a2b3c4d',
      workflow: 'fix',
      name: 'nightly',
      status: 'failed',
      total_cost_usd: 0.25,
      error: 'START.sh: exited with code 3',
      resume: 'raymond --resume fix-1a2b3c4d',
    });
  });

  it('paused and budget_exceeded are told with the resume command; a run without a label has no name', () => {
    const { name: _name, ...unnamed } = run;
    for (const status of ['paused', 'budget_exceeded'] as const) {
      const n = runNotification(finished(status), unnamed, {}, at)!;
      assert.equal(n.event, `run.${status}`);
      assert.equal(n.status, status);
      assert.equal(n.resume, 'raymond --resume fix-1a2b3c4d');
      assert.equal('name' in n, false);
      assert.equal('results' in n, false);
    }
  });

  it('an interrupted run (still running) is not told', () => {
    assert.equal(runNotification(finished('running'), run, {}, at), undefined);
  });
});
