import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunEvent } from '../../machines/run-events.js';
import type { AgentAsk } from '../../machines/types.js';
import { emptyLiveModel, foldLiveEvent, type LiveModel } from '../../src/web/live-fold.js';

const counts = { idle: 1, invoking: 0, 'awaiting-child': 0, terminated: 0, paused: 0, asking: 0 };
const ask: AgentAsk = {
  id: 'ask_w1_1',
  prompt: 'Approve?',
  created_at: '2026-01-01T00:00:00Z',
  next: 'DECIDE.sh',
  agent_id: 'main_w1',
};
const failure = { code: 'ERR_SCRIPT', message: 'exit 1', file: 'W.sh', pauses: false } as never;

function fold(events: RunEvent[], model: LiveModel = emptyLiveModel()): LiveModel {
  for (const e of events) foldLiveEvent(model, e);
  return model;
}

describe('foldLiveEvent (the fold the server and the live page share)', () => {
  it('starts from a run not yet started, with no agent and no ask', () => {
    const m = emptyLiveModel();
    assert.deepEqual(m.run, {
      id: null,
      status: 'starting',
      costUsd: 0,
      budgetUsd: 0,
      startedAt: null,
      steps: 0,
      denials: 0,
    });
    assert.equal(m.agents.size + m.order.length + m.asks.size + m.byState.size, 0);
    assert.notEqual(emptyLiveModel().run, m.run, 'each model has its own run');
  });

  it('lists agents in the order they appeared, each once, whichever event names it first', () => {
    const m = fold([
      { type: 'step.started', agentId: 'main', state: 'START.md' },
      { type: 'agent.forked', parentId: 'main', id: 'main_w2', state: 'W.sh', attributes: {} },
      { type: 'ask.created', ask },
      { type: 'step.started', agentId: 'main_w2', state: 'W.sh' },
      { type: 'step.started', agentId: 'main', state: 'NEXT.md' },
    ]);
    assert.deepEqual(m.order, ['main', 'main_w2', 'main_w1']);
    assert.deepEqual([...m.agents.keys()], m.order);
    assert.deepEqual(m.agents.get('main_w1'), {
      id: 'main_w1',
      machine: 'asking',
      state: 'DECIDE.sh',
      depth: 0,
      costUsd: 0,
    });
  });

  it("gives a step's cost to its agent and the total to the run, and the main agent's result to the run", () => {
    const m = fold([
      {
        type: 'run.started',
        workflowId: 'wf-1',
        workflow: 'wf',
        name: 'nightly',
        resumed: false,
        at: 1000,
        budgetUsd: 5,
        totalCostUsd: 0.5,
        counts,
      },
      {
        type: 'step.done',
        agentId: 'main',
        from: 'A.md',
        decision: { kind: 'fork', next: 'B.md', join: true } as never,
        to: 'B.md',
        session: 's',
        depth: 0,
        costUsd: 0.25,
        totalCostUsd: 0.75,
        workers: [],
      },
      {
        type: 'step.done',
        agentId: 'main',
        from: 'B.md',
        decision: { kind: 'result', payload: 'done' } as never,
        to: null,
        session: 's',
        depth: 0,
        costUsd: 0.5,
        totalCostUsd: 1.25,
        workers: [],
      },
      {
        type: 'step.done',
        agentId: 'main_w1',
        from: 'W.sh',
        decision: { kind: 'result', payload: 'worker' } as never,
        to: null,
        session: null,
        depth: 2,
        costUsd: 0,
        totalCostUsd: 1.25,
        workers: [],
      },
    ]);
    assert.deepEqual(m.run, {
      id: 'wf-1',
      name: 'nightly',
      status: 'running',
      costUsd: 1.25,
      budgetUsd: 5,
      startedAt: 1000,
      steps: 3,
      denials: 0,
      result: 'done',
    });
    assert.deepEqual(m.agents.get('main'), {
      id: 'main',
      machine: 'terminated',
      state: 'B.md',
      depth: 0,
      costUsd: 0.75,
    });
    assert.equal(m.agents.get('main_w1')!.depth, 2);
  });

  it('sets each machine state: awaiting-child on a joined fork, asking on <ask>, paused, failed, joined', () => {
    const step = (agentId: string, decision: object, to: string | null): RunEvent => ({
      type: 'step.done',
      agentId,
      from: 'X.md',
      decision: decision as never,
      to,
      session: null,
      depth: 0,
      costUsd: 0,
      totalCostUsd: 0,
      workers: [],
    });
    const m = fold([
      step('a', { kind: 'fork', next: 'J.md', join: true }, 'J.md'),
      step('b', { kind: 'fork', next: 'N.md' }, 'N.md'),
      step('c', { kind: 'ask', next: 'D.md', prompt: '?' }, 'X.md'),
      step('f', { kind: 'fork', next: 'J.md', join: true }, 'J.md'),
      { type: 'agent.joined', agentId: 'f', state: 'AFTER.md', workers: 2 },
      { type: 'agent.paused', agentId: 'd', state: 'P.sh', failure, totalCostUsd: 2 },
      { type: 'agent.failed', agentId: 'e', state: 'F.sh', failure, totalCostUsd: 3 },
    ]);
    const machines = Object.fromEntries(
      [...m.agents.values()].map((a) => [a.id, a.machine + (a.failed ? ' failed' : '')]),
    );
    assert.deepEqual(machines, {
      a: 'awaiting-child',
      b: 'idle',
      c: 'asking',
      f: 'idle',
      d: 'paused',
      e: 'terminated failed',
    });
    assert.equal(m.agents.get('f')!.state, 'AFTER.md');
    assert.equal(m.run.costUsd, 3);
  });

  it('drops an answered ask, and frees its agent only if it was still asking', () => {
    const m = fold([
      { type: 'ask.created', ask },
      { type: 'ask.pending', ask: { ...ask, id: 'ask_2', agent_id: 'main' } },
    ]);
    m.agents.get('main')!.machine = 'invoking';
    fold(
      [
        { type: 'ask.answered', agentId: 'main_w1', askId: ask.id, expired: false },
        { type: 'ask.answered', agentId: 'main', askId: 'ask_2', expired: true },
      ],
      m,
    );
    assert.equal(m.asks.size, 0);
    assert.equal(m.agents.get('main_w1')!.machine, 'idle');
    assert.equal(m.agents.get('main')!.machine, 'invoking');
  });

  it('counts denials, and says "stopped" for a run that ended while running', () => {
    const m = fold([
      {
        type: 'permission.denied',
        agentId: 'main',
        state: 'S.md',
        tool: 'Bash',
        input: {},
        shown: 'Bash(x)',
      },
      {
        type: 'permission.denied',
        agentId: 'main',
        state: 'S.md',
        tool: 'Bash',
        input: {},
        shown: 'Bash(y)',
      },
      {
        type: 'run.finished',
        workflowId: 'wf',
        status: 'running',
        steps: 4,
        totalCostUsd: 2,
        elapsedMs: 1500,
        error: 'interrupted',
      },
    ]);
    assert.equal(m.run.denials, 2);
    assert.equal(m.run.status, 'stopped');
    assert.deepEqual([m.run.costUsd, m.run.elapsedMs, m.run.error], [2, 1500, 'interrupted']);
    fold(
      [
        {
          type: 'run.finished',
          workflowId: 'wf',
          status: 'completed',
          steps: 4,
          totalCostUsd: 2,
          elapsedMs: 1600,
        },
      ],
      m,
    );
    assert.equal(m.run.status, 'completed');
  });

  it("sums each step.measured into the cost by state, a callee's state under its workflow's key", () => {
    const measured = (
      state: string,
      costUsd: number,
      turns: number,
      wallMs: number,
      scope?: string,
    ): RunEvent => ({
      type: 'step.measured',
      agentId: 'main',
      state,
      ...(scope ? { scope } : {}),
      backend: turns ? 'claude' : 'script',
      turns,
      retries: 0,
      reminders: 0,
      costUsd,
      tokens: 0,
      startedAt: 0,
      wallMs,
      cpuMs: 0,
      outcome: 'goto',
    });
    const m = fold([
      measured('PLAN.md', 0.02, 2, 1200),
      measured('CHECK.sh', 0, 0, 30),
      measured('FIX.md', 0.05, 1, 800, 'fixer-1a2b3c4d'),
      measured('PLAN.md', 0.01, 1, 600),
    ]);
    assert.deepEqual(
      m.byState
        .rows(0.08)
        .map((r) => [r.name, r.steps, r.turns, r.wallMs, Math.round(r.share * 100)]),
      [
        ['fixer-1a2b3c4d:FIX.md', 1, 1, 800, 63],
        ['PLAN.md', 2, 3, 1800, 38],
        ['CHECK.sh', 1, 0, 30, 0],
      ],
    );
    assert.equal(m.order.length, 0, 'a measure names no agent the page has not seen');
  });

  it('leaves the model as it was for events that move nothing (print, warning)', () => {
    const m = fold([{ type: 'step.started', agentId: 'main', state: 'S.md' }]);
    const before = JSON.stringify([m.run, [...m.agents.values()], m.order]);
    fold(
      [
        { type: 'print', agentId: 'main', text: 'hi' },
        { type: 'warning', text: 'careful' },
      ],
      m,
    );
    assert.equal(JSON.stringify([m.run, [...m.agents.values()], m.order]), before);
  });

  it("heads the run with each backend's current width, the last change of each", () => {
    const width = (backend: string, w: number, was: number, why: 'rate-limited' | 'recovering') =>
      ({ type: 'width.changed', backend, width: w, was, ceiling: 50, why }) as const;
    const m = fold([
      width('claude', 35, 50, 'rate-limited'),
      width('pi', 4, 8, 'rate-limited'),
      width('claude', 36, 35, 'recovering'),
    ]);
    assert.deepEqual(m.run.widths, {
      claude: 'claude: recovering: 36 at once (at most 50)',
      pi: 'pi: rate limited: 4 at once, was 8',
    });
  });
});
