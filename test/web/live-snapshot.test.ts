import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunEvent } from '../../machines/run-events.js';
import type { AgentAsk } from '../../machines/types.js';
import { CostTable } from '../../machines/cost-table.js';
import { emptyLiveModel, foldLiveEvent } from '../../src/web/live-fold.js';
import { createLiveTracker } from '../../src/web/live-snapshot.js';

const counts = { idle: 1, invoking: 0, 'awaiting-child': 0, terminated: 0, paused: 0, asking: 0 };
const ask: AgentAsk = {
  id: 'ask_main_1',
  prompt: 'Approve?',
  created_at: '2026-01-01T00:00:00Z',
  next: 'DECIDE.sh',
  agent_id: 'main',
};

function feed(events: RunEvent[]) {
  const tracker = createLiveTracker();
  events.forEach((e, i) => tracker.event(i + 1, e));
  return tracker;
}

describe('the live tracker', () => {
  it('follows each agent from state to state, with its machine state, depth and cost', () => {
    const t = feed([
      {
        type: 'run.started',
        workflowId: 'wf-1',
        workflow: 'wf',
        resumed: false,
        at: 1000,
        budgetUsd: 5,
        totalCostUsd: 0,
        counts,
      },
      { type: 'step.started', agentId: 'main', state: 'START.md' },
      { type: 'agent.forked', parentId: 'main', id: 'main_w1', state: 'WORK.sh', attributes: {} },
      {
        type: 'step.done',
        agentId: 'main',
        from: 'START.md',
        decision: { kind: 'call', target: 'SUB.md', returnTo: 'BACK.md' },
        to: 'SUB.md',
        session: 's',
        depth: 1,
        costUsd: 0.25,
        totalCostUsd: 0.25,
        workers: [{ id: 'main_w1', state: 'WORK.sh', attributes: {} }],
      },
      { type: 'step.started', agentId: 'main_w1', state: 'WORK.sh', scope: 'other' },
    ]);
    const s = t.snapshot();
    assert.equal(s.seq, 5);
    assert.deepEqual(s.run, {
      id: 'wf-1',
      name: undefined,
      status: 'running',
      costUsd: 0.25,
      budgetUsd: 5,
      startedAt: 1000,
      steps: 1,
      denials: 0,
    });
    assert.deepEqual(s.agents, [
      { id: 'main', machine: 'idle', state: 'SUB.md', depth: 1, costUsd: 0.25, scope: undefined },
      {
        id: 'main_w1',
        machine: 'invoking',
        state: 'WORK.sh',
        depth: 0,
        costUsd: 0,
        scope: 'other',
      },
    ]);
    assert.deepEqual(
      s.recent.map((r) => r.seq),
      [1, 4],
      'the log keeps the run and its steps, not step starts',
    );
  });

  it('counts denied tool calls and keeps them in the log', () => {
    const t = createLiveTracker();
    t.event(1, {
      type: 'run.started',
      workflowId: 'wf',
      workflow: 'wf',
      resumed: false,
      at: 1,
      budgetUsd: 0,
      totalCostUsd: 0,
      counts: { idle: 1, invoking: 0, 'awaiting-child': 0, terminated: 0, paused: 0, asking: 0 },
    });
    t.event(2, {
      type: 'permission.denied',
      agentId: 'main',
      state: 'START.md',
      tool: 'Bash',
      input: { command: 'git push' },
      shown: 'Bash(git push)',
    });
    assert.equal(t.snapshot().run.denials, 1);
    assert.deepEqual(
      t.snapshot().recent.map((r) => r.event.type),
      ['run.started', 'permission.denied'],
    );
  });

  it('keeps pending asks until answered, and marks the asking agent', () => {
    const t = feed([
      { type: 'step.started', agentId: 'main', state: '1_START.sh' },
      { type: 'ask.created', ask },
      {
        type: 'step.done',
        agentId: 'main',
        from: '1_START.sh',
        decision: { kind: 'ask', next: 'DECIDE.sh', prompt: 'Approve?' } as never,
        to: '1_START.sh',
        session: null,
        depth: 0,
        costUsd: 0,
        totalCostUsd: 0,
        workers: [],
      },
    ]);
    assert.equal(t.pending(ask.id), true);
    assert.deepEqual(t.snapshot().asks, [ask]);
    assert.equal(t.snapshot().agents[0]!.machine, 'asking');
    t.event(4, { type: 'ask.answered', agentId: 'main', askId: ask.id, expired: false });
    assert.equal(t.pending(ask.id), false);
    assert.deepEqual(t.snapshot().asks, []);
    assert.equal(t.snapshot().agents[0]!.machine, 'idle');
  });

  it('ends agents with a result or a failure, and a run that stopped with agents running is "stopped"', () => {
    const failure = { code: 'ERR_SCRIPT', message: 'exit 1', file: 'W.sh', pauses: false } as never;
    const t = feed([
      {
        type: 'step.done',
        agentId: 'main',
        from: 'A.sh',
        decision: { kind: 'result', payload: 'ok' } as never,
        to: null,
        session: null,
        depth: 0,
        costUsd: 0,
        totalCostUsd: 0,
        workers: [],
      },
      { type: 'agent.failed', agentId: 'w', state: 'W.sh', failure, totalCostUsd: 0 },
      { type: 'agent.paused', agentId: 'p', state: 'P.md', failure, totalCostUsd: 1.5 },
      {
        type: 'run.finished',
        workflowId: 'wf',
        status: 'running',
        totalCostUsd: 1.5,
        steps: 1,
        elapsedMs: 42,
      },
    ]);
    const s = t.snapshot();
    assert.deepEqual(
      s.agents.map((a) => [a.id, a.machine, a.failed]),
      [
        ['main', 'terminated', undefined],
        ['w', 'terminated', true],
        ['p', 'paused', undefined],
      ],
    );
    assert.equal(s.run.status, 'stopped');
    assert.equal(s.run.elapsedMs, 42);
    assert.equal(s.run.costUsd, 1.5);
    // The main agent's result is the run's (the page shows it).
    assert.equal(s.run.result, 'ok');
  });

  it('carries the cost by state, and a page restoring it then folding the rest ends where the server does', () => {
    const measured = (state: string, costUsd: number, wallMs: number): RunEvent => ({
      type: 'step.measured',
      agentId: 'main',
      state,
      backend: 'claude',
      turns: 1,
      retries: 0,
      reminders: 0,
      costUsd,
      tokens: 0,
      startedAt: 0,
      wallMs,
      cpuMs: 0,
      outcome: 'goto',
    });
    const done = (from: string, to: string, costUsd: number, total: number): RunEvent => ({
      type: 'step.done',
      agentId: 'main',
      from,
      decision: { kind: 'goto', target: to } as never,
      to,
      session: null,
      depth: 0,
      costUsd,
      totalCostUsd: total,
      workers: [],
    });
    const events = [
      measured('A.md', 0.25, 1000),
      done('A.md', 'B.md', 0.25, 0.25),
      measured('B.md', 0.5, 2500),
      done('B.md', 'A.md', 0.5, 0.75),
      measured('A.md', 0.125, 500),
      done('A.md', 'B.md', 0.125, 0.875),
    ];
    const t = feed(events.slice(0, 4));
    const snap = JSON.parse(JSON.stringify(t.snapshot())) as ReturnType<typeof t.snapshot>;
    assert.deepEqual(snap.byState, [
      { name: 'B.md', steps: 1, turns: 1, costUsd: 0.5, wallMs: 2500, share: 0.5 / 0.75 },
      { name: 'A.md', steps: 1, turns: 1, costUsd: 0.25, wallMs: 1000, share: 0.25 / 0.75 },
    ]);
    // The page: the snapshot's run and table, then the events after it.
    const page = { ...emptyLiveModel(), run: snap.run, byState: new CostTable(snap.byState) };
    for (const e of events.slice(4)) foldLiveEvent(page, e);
    const server = feed(events).snapshot();
    assert.deepEqual(page.byState.rows(page.run.costUsd), server.byState);
    assert.equal(server.byState[1]!.steps, 2);
  });
});
