import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  agentIn as agent,
  freshState,
  runFake,
  type FakeDecision,
} from '../helpers/fake-actors.js';
import type { StepFailure } from '../../machines/step-failure.js';
import type { AgentRecord, JoinEntry, WorkflowState } from '../../machines/types.js';

const W = (item: string, target = 'W') => ({ target, attributes: { item } });
/** The join state echoes its input as its result. */
const echo = (r: AgentRecord): FakeDecision => ({ kind: 'result', payload: r.input ?? 'no input' });
const entries = (payload: string | undefined) => JSON.parse(payload ?? 'null') as JoinEntry[];
const last = (writes: string[]) => JSON.parse(writes.at(-1)!) as WorkflowState;
/** A step's own failure, as the runtime rejects with it (a plain Error is a bug of ours, which stops the run). */
const stepFails = (message: string, halts?: true): never => {
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- the runtime's step failures are plain data
  throw {
    kind: 'step-failure',
    code: 'ERR_SCRIPT_FAILED',
    message,
    pauses: false,
    spentUsd: 0,
    sessionCosts: {},
    halts,
  } satisfies StepFailure;
};

describe('supervisor: <join>', () => {
  it('hands the join state every worker in fork order, a failed one included, and the run completes', async () => {
    const run = await runFake(
      {
        START: { kind: 'fork', next: 'COLLECT', workers: [W('1'), W('2'), W('3')], join: true },
        // Worker 1 is the slowest, so fork order is not end order.
        W: async (r) => {
          if (r.attributes.item === '2') stepFails('script exited with code 3');
          await new Promise((ok) => setTimeout(ok, r.attributes.item === '1' ? 30 : 1));
          return { kind: 'result', payload: `done ${r.attributes.item}` };
        },
        COLLECT: echo,
      },
      { cost: 0.5 },
    );
    assert.equal(run.output.status, 'completed');
    const got = entries(run.store.meta.results.main);
    assert.deepEqual(
      got.map((e) => [e.agent, e.status, e.result ?? e.error]),
      [
        ['main_w1', 'completed', 'done 1'],
        ['main_w2', 'failed', 'script exited with code 3'],
        ['main_w3', 'completed', 'done 3'],
      ],
    );
    assert.deepEqual(got[0]!.attributes, { item: '1' });
    assert.equal(got[0]!.cost_usd, 0.5, "a worker's own steps");
    assert.deepEqual(Object.keys(got[0]!), ['agent', 'attributes', 'status', 'result', 'cost_usd']);
    const state = last(run.writes);
    assert.equal(agent(state, 'main_w2').status, 'failed');
    assert.equal(agent(state, 'main_w2').joined, true, 'the failure counts as handled');
    assert.equal(agent(state, 'main').cost_usd, 1, 'START and COLLECT');
  });

  it('gathers forks of several steps; a second join gets only the workers forked since the first', async () => {
    const run = await runFake({
      START: { kind: 'fork', next: 'MORE', workers: [W('a')] },
      MORE: { kind: 'fork', next: 'J1', workers: [W('b')], join: true },
      J1: (r) => ({
        kind: 'fork',
        next: 'J2',
        workers: [W('c')],
        join: true,
        nextInput: r.input ?? '',
      }),
      J2: echo,
      W: (r) => ({ kind: 'result', payload: r.attributes.item! }),
    });
    assert.equal(run.output.status, 'completed');
    const joins = run.reports.filter((e) => e.type === 'agent.joined');
    assert.deepEqual(
      joins.map((e) => e.type === 'agent.joined' && [e.state, e.workers]),
      [
        ['J1', 2],
        ['J2', 1],
      ],
    );
    assert.deepEqual(
      entries(run.store.meta.results.main).map((e) => e.result),
      ['c'],
    );
  });

  it('a join with no workers goes on at once with []', async () => {
    const run = await runFake({
      START: { kind: 'fork', next: 'C', workers: [], join: true },
      C: echo,
    });
    assert.equal(run.output.status, 'completed');
    assert.equal(run.store.meta.results.main, '[]');
  });

  it('a failed worker no join receives ends alone, the others go on, and the run fails at the end naming it', async () => {
    const run = await runFake({
      START: { kind: 'fork', next: 'END', workers: [W('1'), W('2'), W('3')] },
      W: async (r) => {
        if (r.attributes.item === '1') stepFails('boom');
        await new Promise((ok) => setTimeout(ok, 20));
        return { kind: 'result', payload: r.attributes.item! };
      },
      END: { kind: 'result', payload: 'end' },
    });
    assert.equal(run.output.status, 'failed');
    assert.match(
      run.output.error!,
      /^1 worker\(s\) failed and no <join> received the failure: main_w1: boom/,
    );
    assert.deepEqual(Object.keys(run.store.meta.results).sort(), ['main', 'main_w2', 'main_w3']);
    const failed = run.reports.find((e) => e.type === 'agent.failed');
    assert.equal(failed?.type === 'agent.failed' && failed.worker, true);
  });

  it('a worker that meets a full disk, or a bug of ours, stops the run at once like the main agent', async () => {
    for (const fail of [
      () => stepFails('cannot make the task folder /t: ENOSPC; make room, then resume', true),
      () => {
        throw new Error('a bug');
      },
    ]) {
      const run = await runFake({
        START: { kind: 'fork', next: 'C', workers: [W('1'), W('2')], join: true },
        W: (r) =>
          r.attributes.item === '1'
            ? fail()
            : new Promise<FakeDecision>((ok) =>
                setTimeout(() => ok({ kind: 'result', payload: 'late' }), 200),
              ),
        C: echo,
      });
      assert.equal(run.output.status, 'failed');
      assert.equal(run.store.meta.results.main_w2, undefined, 'the other worker was stopped');
      assert.equal(run.store.meta.results.main, undefined, 'the join never ran');
    }
  });

  it("the main agent's own failure still ends the run at once", async () => {
    const run = await runFake({
      START: { kind: 'fork', next: 'BOOM', workers: [W('1')] },
      BOOM: () => {
        throw new Error('main broke');
      },
      W: () => new Promise((ok) => setTimeout(() => ok({ kind: 'result', payload: 'late' }), 200)),
    });
    assert.equal(run.output.status, 'failed');
    assert.match(run.output.error!, /main broke/);
    assert.equal(run.store.meta.results.main_w1, undefined, 'the worker was stopped');
  });

  it('nests: a worker forks and joins its own workers, and its parent joins it', async () => {
    const run = await runFake({
      START: { kind: 'fork', next: 'TOP', workers: [W('x', 'SUB')], join: true },
      SUB: { kind: 'fork', next: 'SUBJOIN', workers: [W('y'), W('z')], join: true },
      SUBJOIN: (r) => ({
        kind: 'result',
        payload: entries(r.input!)
          .map((e) => e.result)
          .join('+'),
      }),
      W: (r) => ({ kind: 'result', payload: r.attributes.item! }),
      TOP: echo,
    });
    assert.equal(run.output.status, 'completed');
    assert.deepEqual(
      entries(run.store.meta.results.main).map((e) => [e.agent, e.result]),
      [['main_sub1', 'y+z']],
    );
  });

  it('joins inside a called frame: the callee waits, then returns to its caller', async () => {
    const run = await runFake({
      START: { kind: 'call', target: 'CALLEE', returnTo: 'BACK' },
      CALLEE: { kind: 'fork', next: 'CJOIN', workers: [W('1'), W('2')], join: true },
      CJOIN: (r) => ({ kind: 'result', payload: String(entries(r.input!).length) }),
      W: (r) => ({ kind: 'result', payload: r.attributes.item! }),
      BACK: (r) => ({ kind: 'result', payload: `callee joined ${r.input}` }),
    });
    assert.equal(run.output.status, 'completed');
    assert.equal(run.store.meta.results.main, 'callee joined 2');
  });

  it('a worker waiting on an ask keeps its parent waiting: the run stops to ask', async () => {
    const ask = {
      id: 'ask_main_w1_1',
      prompt: 'ok?',
      created_at: '2026-01-01T00:00:00.000Z',
      next: 'W2',
    };
    const run = await runFake(
      {
        START: { kind: 'fork', next: 'C', workers: [W('1')], join: true },
        W: { kind: 'ask', next: 'W2', prompt: 'ok?', ask },
        C: echo,
      },
      { stopWhenAsking: true },
    );
    assert.equal(run.output.status, 'asking');
    const state = last(run.writes);
    assert.equal(agent(state, 'main').joining, true);
    assert.equal(agent(state, 'main_w1').parent, 'main');
  });

  it('resumed in a join whose workers all ended, it goes on at once; with one still live, it waits for it', async () => {
    const ended = freshState('C', { joining: true });
    ended.agents.push({
      id: 'main_w1',
      parent: 'main',
      state: 'W',
      session: null,
      branchFrom: null,
      stack: [],
      cwd: '/wf',
      attributes: { item: '1' },
      input: null,
      status: 'terminated',
      result: 'one',
    });
    ended.results = { main_w1: 'one' };
    const a = await runFake({ C: echo }, { state: ended });
    assert.equal(a.output.status, 'completed');
    assert.equal(entries(a.store.meta.results.main)[0]!.result, 'one');
    assert.deepEqual(a.started, ['main:C'], 'the join state ran once, the worker not again');

    const live = freshState('C', { joining: true });
    live.agents.push({
      id: 'main_w1',
      parent: 'main',
      state: 'W',
      session: null,
      branchFrom: null,
      stack: [],
      cwd: '/wf',
      attributes: { item: '1' },
      input: null,
      status: 'active',
    });
    const b = await runFake(
      { C: echo, W: { kind: 'result', payload: 'one again' } },
      { state: live, maxParallel: 1 },
    );
    assert.equal(b.output.status, 'completed');
    assert.deepEqual(b.started, ['main_w1:W', 'main:C'], 'the waiting parent took no slot');
    assert.equal(entries(b.store.meta.results.main)[0]!.result, 'one again');
  });
});
