import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentIn as agent, freshState, runFake } from '../helpers/fake-actors.js';
import { supervisorMachine } from '../../machines/supervisor.machine.js';
import type { StepFailure } from '../../machines/step-failure.js';
import type { AgentRecord, WorkflowState } from '../../machines/types.js';

describe('supervisor: failures, slots and scheduling', () => {
  it('a failed step ends the run as failed and records the error on the agent', async () => {
    const run = await runFake({
      START: { kind: 'goto', target: 'BOOM' },
      BOOM: () => {
        throw new Error('script exited with code 3');
      },
    });
    assert.equal(run.output.status, 'failed');
    assert.match(run.output.error!, /code 3/);
    const last = JSON.parse(run.writes.at(-1)!) as WorkflowState;
    assert.equal(last.status, 'failed');
    assert.equal(agent(last, 'main').status, 'failed');
    assert.equal(agent(last, 'main').state, 'BOOM', 'the agent stays at the state that failed');
  });

  it('--budget-hard: a stopped turn pauses its agent in the session it ran in, and its charge spends the budget', async () => {
    const state = freshState('START', { branchFrom: 'caller-session' });
    state.options.budget_usd = 1;
    const stopped: StepFailure = {
      kind: 'step-failure',
      code: 'ERR_BUDGET',
      message: 'stopped by --budget-hard',
      file: 'START',
      pauses: true,
      spentUsd: 0.98,
      sessionCosts: { 's-9': 0.98 },
      budget: true,
      session: 's-9',
    };
    const run = await runFake(
      {
        START: () => {
          // The step runner hands a StepFailure on as it is (the runtime rejects with one).
          // eslint-disable-next-line @typescript-eslint/only-throw-error
          throw stopped;
        },
      },
      { state },
    );
    assert.equal(
      run.output.status,
      'budget_exceeded',
      '$0.98 by the table, yet the budget is spent',
    );
    assert.match(
      run.output.error!,
      /is spent: the turns running as it was reached were stopped \(--budget-hard\)/,
    );
    const last = JSON.parse(run.writes.at(-1)!) as WorkflowState;
    const main = agent(last, 'main');
    assert.equal(main.status, 'paused');
    assert.equal(main.error, 'START: stopped by --budget-hard');
    assert.equal(main.session, 's-9', 'a --resume goes on in the stopped session');
    assert.equal(main.branchFrom ?? null, null, 'its <call> branch is used up');
    assert.equal(last.session_costs['s-9'], 0.98);
    assert.equal(last.total_cost_usd, 0.98);
  });

  it('never runs more than maxParallel steps at once, and queues the rest', async () => {
    const workers = Array.from({ length: 20 }, (_, i) => ({
      target: 'W',
      attributes: { n: String(i) },
    }));
    const run = await runFake(
      {
        START: { kind: 'fork', next: 'END', workers },
        W: (r) =>
          new Promise((ok) =>
            setTimeout(() => ok({ kind: 'result', payload: r.attributes.n! }), 5),
          ),
        END: { kind: 'result', payload: 'x' },
      },
      { maxParallel: 3 },
    );
    assert.equal(run.output.status, 'completed');
    assert.equal(Object.keys(run.store.meta.results).length, 21);
    assert.ok(run.maxRunning <= 3, `at most 3 at once, saw ${run.maxRunning}`);
    assert.equal(run.maxRunning, 3);
    const forked = run.reports.flatMap((e) => (e.type === 'workers.forked' ? [e] : []));
    assert.equal(forked.length, 1, 'a fork is reported once, with all its workers');
    assert.equal(forked[0]!.parentId, 'main');
    assert.deepEqual(
      forked[0]!.workers.map((w) => w.attributes.n),
      workers.map((w) => w.attributes.n),
    );
  });

  it('caps markdown steps separately without holding scripts behind them', async () => {
    let markdownNow = 0;
    let markdownPeak = 0;
    const slowMarkdown = async (r: AgentRecord) => {
      markdownNow++;
      markdownPeak = Math.max(markdownPeak, markdownNow);
      await new Promise((ok) => setTimeout(ok, 20));
      markdownNow--;
      return { kind: 'result' as const, payload: r.id };
    };
    const workers = [
      ...Array.from({ length: 6 }, () => ({ target: 'ASK.md', attributes: {} })),
      ...Array.from({ length: 6 }, () => ({ target: 'RUN.sh', attributes: {} })),
    ];
    const run = await runFake(
      {
        START: { kind: 'fork', next: 'END', workers },
        'ASK.md': slowMarkdown,
        'RUN.sh': { kind: 'result', payload: 's' },
        END: { kind: 'result', payload: 'e' },
      },
      { maxParallel: 4, maxMarkdown: 1 },
    );
    assert.equal(Object.keys(run.store.meta.results).length, 13);
    assert.equal(markdownPeak, 1, 'one markdown step at a time');
    const order = run.started.slice(1);
    const lastScript = order.findLastIndex((s) => s.endsWith('RUN.sh'));
    const lastMarkdown = order.findLastIndex((s) => s.endsWith('ASK.md'));
    assert.ok(
      lastScript < lastMarkdown,
      `scripts did not wait behind the markdown queue: ${order.join(' ')}`,
    );
  });

  it('a dispatcher forking one worker per step keeps getting turns among a thousand queued workers', async () => {
    let dispatched = 0;
    const run = await runFake(
      {
        START: () =>
          ++dispatched <= 1000
            ? { kind: 'fork', next: 'START', workers: [{ target: 'W', attributes: {} }] }
            : { kind: 'result', payload: 'dispatched' },
        W: { kind: 'result', payload: 'w' },
      },
      { maxParallel: 2, delayMs: 0 },
    );
    assert.equal(Object.keys(run.store.meta.results).length, 1001);
    // FIFO: between two dispatcher steps, at most the workers queued before it ran.
    const positions = run.started.flatMap((s, i) => (s === 'main:START' ? [i] : []));
    const gaps = positions.slice(1).map((p, i) => p - positions[i]! - 1);
    assert.ok(Math.max(...gaps) <= 2, `largest gap between dispatcher turns: ${Math.max(...gaps)}`);
  });
});

describe('supervisor: worker ids', () => {
  it('fails the run instead of letting a worker take an id the run holds', async () => {
    const state = freshState();
    state.agents.push({
      id: 'main_w1',
      state: 'W',
      session: null,
      branchFrom: null,
      stack: [],
      cwd: '/wf',
      attributes: {},
      input: null,
      status: 'terminated',
      result: 'first',
    });
    state.results = { main_w1: 'first' };
    const run = await runFake(
      {
        START: {
          kind: 'fork',
          next: 'END',
          workers: [{ id: 'main_w1', target: 'W', attributes: {} }],
        },
        W: { kind: 'result', payload: 'second' },
        END: { kind: 'result', payload: 'e' },
      },
      { state },
    );
    assert.equal(run.output.status, 'failed');
    assert.match(
      run.output.error!,
      /^START: <fork> named a worker "main_w1", an id this run already has/,
    );
    const last = JSON.parse(run.writes.at(-1)!) as WorkflowState;
    assert.equal(last.results.main_w1, 'first', "the first worker's result is kept");
    assert.equal(agent(last, 'main_w1').result, 'first');
    assert.equal(
      agent(last, 'main').state,
      'START',
      'the fork is not recorded: a resume runs it again',
    );
    assert.equal(agent(last, 'main').status, 'failed');
  });

  it('fails the run when one fork names two workers alike, without a crash', async () => {
    const run = await runFake({
      START: {
        kind: 'fork',
        next: 'END',
        workers: [
          { id: 'main_x1', target: 'W', attributes: {} },
          { id: 'main_x1', target: 'W', attributes: {} },
        ],
      },
      W: { kind: 'result', payload: 'w' },
      END: { kind: 'result', payload: 'e' },
    });
    assert.equal(run.output.status, 'failed');
    assert.match(run.output.error!, /"main_x1"/);
    assert.equal(run.store.agents.has('main_x1'), false);
  });
});

describe('supervisor: event wiring', () => {
  // An action or guard wired to the wrong event throws (xstate's assertEvent) instead of doing nothing.
  type Impl = (args: { context: unknown; event: { type: string } }) => unknown;
  const { actions, guards } = supervisorMachine.implementations as unknown as {
    actions: Record<string, Impl>;
    guards: Record<string, Impl>;
  };

  it('an action or guard given an event it was not written for throws, naming the event it expected', () => {
    const wrong = { context: {}, event: { type: 'run.drain' } };
    assert.throws(
      () => actions.queue!(wrong),
      /Expected event \{"type":"run\.drain"\} to have type matching "agent\.ready"/,
    );
    assert.throws(() => actions.queueContinuing!(wrong), /to have type matching "step\.done"/);
    for (const [name, type] of [
      ['pauses', 'step.failed'],
      ['isWorker', 'step.failed'],
      ['reusesId', 'step.done'],
      ['expiryFails', 'ask.expire'],
    ] as const) {
      assert.throws(
        () => guards[name]!(wrong),
        new RegExp(`to have type matching "${type.replace('.', '\\.')}"`),
        name,
      );
    }
  });
});
