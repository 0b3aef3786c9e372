import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunEvent } from '../../machines/run-events.js';
import { runJson } from '../../src/serve/run-json.js';
import { liveSnapshotOf } from '../../src/serve/run-live-view.js';
import { ServedRun } from '../../src/serve/served-run.js';

const finished = (status: 'completed' | 'running' | 'failed'): RunEvent => ({
  type: 'run.finished',
  workflowId: 'r',
  status,
  totalCostUsd: 0,
  steps: 1,
  elapsedMs: 1,
});

/** A run cancelled (over HTTP) whose own end is `status`: its status, and the last event its stream sent. */
function cancelledAs(status: 'completed' | 'running' | 'failed'): { status: string; last: string } {
  const run = new ServedRun('r', 'wf', '/wf', '/pool/r.json', 0);
  run.cancelled = true;
  run.onEvent(finished(status));
  run.finish(status);
  return { status: run.status, last: JSON.parse(run.events.replay(0).events.at(-1)!.data).type };
}

describe("ServedRun: a cancel racing the run's end", () => {
  it('a run that completed or failed as the cancel came keeps that status, and its stream says so', () => {
    assert.deepEqual(cancelledAs('completed'), { status: 'completed', last: 'workflow_completed' });
    assert.deepEqual(cancelledAs('failed'), { status: 'failed', last: 'workflow_failed' });
  });

  it('a run the cancel stopped is cancelled', () => {
    assert.deepEqual(cancelledAs('running'), { status: 'cancelled', last: 'workflow_cancelled' });
  });
});

describe('ServedRun: the cost by state', () => {
  it("sums each step.measured by state, and streams it with the RunEvent for the page's table", () => {
    const run = new ServedRun('r', 'wf', '/wf', '/pool/r.json', 0);
    const step = (state: string, costUsd: number, scope?: string): RunEvent => ({
      type: 'step.measured',
      agentId: 'main',
      state,
      ...(scope ? { scope } : {}),
      backend: 'claude',
      turns: 1,
      retries: 0,
      reminders: 0,
      costUsd,
      tokens: 10,
      startedAt: 0,
      wallMs: 100,
      cpuMs: 1,
      outcome: 'goto',
    });
    run.onEvent(step('A.md', 0.01));
    run.onEvent(step('B.md', 0.03, 'sub-12345678'));
    run.onEvent(step('A.md', 0.01));
    assert.deepEqual(
      run.byState.rows(0.05).map((r) => [r.name, r.steps]),
      [
        ['sub-12345678:B.md', 1],
        ['A.md', 2],
      ],
    );
    const sent = run.events.replay(0).events.map((e) => JSON.parse(e.data));
    assert.deepEqual(
      sent.map((d) => [d.type, d.StateName, d.raymond?.type]),
      [
        ['state_measured', 'A.md', 'step.measured'],
        ['state_measured', 'B.md', 'step.measured'],
        ['state_measured', 'A.md', 'step.measured'],
      ],
    );
  });
});

describe("ServedRun: each backend's account width", () => {
  it('GET /runs/{id}, the page snapshot and the event stream say the width and why', () => {
    const run = new ServedRun('r', 'wf', '/wf', '/pool/r.json', 0);
    run.onEvent({
      type: 'width.changed',
      backend: 'claude',
      width: 7,
      was: 50,
      ceiling: 50,
      why: 'rate-limited',
    });
    assert.deepEqual(runJson(run).account_widths, [
      {
        backend: 'claude',
        width: 7,
        was: 50,
        ceiling: 50,
        reason: 'rate-limited',
        message: 'claude: rate limited: 7 at once, was 50',
      },
    ]);
    assert.deepEqual(liveSnapshotOf(run).run.widths, {
      claude: 'claude: rate limited: 7 at once, was 50',
    });
    const sent = JSON.parse(run.events.replay(0).events.at(-1)!.data) as Record<string, unknown>;
    assert.equal(sent.type, 'width_changed');
    assert.equal(sent.Message, 'claude: rate limited: 7 at once, was 50');
  });
});
