import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gateAsk } from '../../machines/gate.js';
import type { ForkDecisionData, GateAsk, PendingAsk, WorkflowState } from '../../machines/types.js';
import { agentIn, freshState, runFake, type FakeDecision } from '../helpers/fake-actors.js';

/** What a step the gate stopped at a fork of `n` workers decides (as src/runtime/cost-gate.ts makes it). */
function forkGate(n: number, amount: number, forecast = 5): FakeDecision {
  const workers = Array.from({ length: n }, (_, i) => ({
    id: `main_w${i + 1}`,
    target: 'W',
    attributes: { n: String(i) },
    taskFolder: { path: `/t/w${i}`, number: 1 },
  }));
  const decision: ForkDecisionData = { kind: 'fork', next: 'END', workers, join: true };
  const gate: GateAsk = {
    kind: 'fork',
    where: 'START.md',
    forecast_usd: forecast,
    spent_usd: 0,
    amount_usd: amount,
    workers: n,
    decision,
    fresh: [],
  };
  const ask = gateAsk('main', 'END', gate, Date.now());
  return { kind: 'ask', next: ask.next, prompt: ask.prompt, ask };
}

/** A state with the gate's amount set, as `--confirm-over` stores it. */
function gated(amount: number, maxAgents?: number): WorkflowState {
  const state = freshState();
  state.options.confirm_over_usd = amount;
  if (maxAgents !== undefined) state.options.max_agents = maxAgents;
  return state;
}

const script = (n: number, amount: number) => ({
  START: forkGate(n, amount),
  W: (r: { attributes: Record<string, string> }) => ({
    kind: 'result' as const,
    payload: `w${r.attributes.n}`,
  }),
  END: { kind: 'result' as const, payload: 'done' },
});

/** Answers every gate question in turn with the next of `answers`; returns the prompts asked. */
function answering(answers: string[]) {
  const prompts: string[] = [];
  return {
    prompts,
    onReport: (e: { type: string; ask?: PendingAsk }, send: (e: never) => void) => {
      if (e.type !== 'ask.created' || !e.ask?.gate) return;
      prompts.push(e.ask.prompt);
      const text = answers.shift();
      if (text !== undefined)
        queueMicrotask(() => send({ type: 'run.answer', askId: e.ask!.id, text } as never));
    },
  };
}

describe('cost gate in the supervisor', () => {
  it('"yes" applies the kept fork without running the step again, and lifts the gate', async () => {
    const a = answering(['yes']);
    const run = await runFake(script(50, 1), { state: gated(1), onReport: a.onReport });
    assert.equal(run.output.status, 'completed');
    assert.equal(Object.keys(run.store.meta.results).length, 51);
    assert.equal(run.started.filter((s) => s === 'main:START').length, 1);
    assert.equal(run.store.meta.options.confirm_over_usd, undefined);
    assert.equal(run.store.meta.fork_counters.main, 50);
    assert.match(a.prompts[0]!, /START\.md forks 50 worker\(s\) forecast at \$5\.00/);
  });

  it('"stop" ends the run paused with the ask still pending', async () => {
    const a = answering(['stop']);
    const run = await runFake(script(3, 1), { state: gated(1), onReport: a.onReport });
    assert.equal(run.output.status, 'paused');
    assert.match(run.output.error!, /cost gate stopped the run at START\.md: 3 worker\(s\)/);
    const last = JSON.parse(run.writes.at(-1)!) as WorkflowState;
    assert.equal(agentIn(last, 'main').ask?.gate?.kind, 'fork');
    assert.equal(last.agents.length, 1, 'no worker started');
  });

  it('asks again with a hint for an answer it does not understand, then takes a new amount', async () => {
    const a = answering(['maybe', '$2', '10']);
    const run = await runFake(script(2, 1), { state: gated(1), onReport: a.onReport });
    assert.equal(a.prompts.length, 3);
    assert.match(a.prompts[1]!, /^"maybe" is not an answer here/);
    assert.match(a.prompts[2]!, /passes --confirm-over \$2\.00/, 'still over: asked again');
    assert.equal(run.output.status, 'completed');
    assert.equal(run.store.meta.options.confirm_over_usd, 10, 'the new amount is kept');
  });

  it('with nobody to answer, stops paused with one line naming the state, forecast and amount', async () => {
    const run = await runFake(script(4, 1), { state: gated(1), gateStops: true });
    assert.equal(run.output.status, 'paused');
    assert.match(
      run.output.error!,
      /^the cost gate stopped the run at START\.md: 4 worker\(s\) forecast at \$5\.00 \(p90\) with \$0\.00 spent would pass --confirm-over \$1\.00; .*--answer ask_main_\d+=yes/,
    );
    assert.doesNotMatch(run.output.error!, /\n/);
  });

  it('applies a resume answer before anything runs', async () => {
    const first = await runFake(script(3, 1), { state: gated(1), gateStops: true });
    const state = JSON.parse(first.writes.at(-1)!) as WorkflowState;
    const askId = agentIn(state, 'main').ask!.id;
    state.status = 'running';
    const again = await runFake(script(3, 1), {
      state,
      gateStops: true,
      gateAnswers: [{ askId, text: 'yes' }],
    });
    assert.equal(again.output.status, 'completed');
    assert.deepEqual(
      again.started.filter((s) => s.endsWith('START')),
      [],
    );
    assert.equal(Object.keys(again.store.meta.results).length, 4);
  });

  it('a run whose gate was lifted lets a stale gate through', async () => {
    const state = freshState();
    const run = await runFake(script(2, 1), { state });
    assert.equal(run.output.status, 'completed');
    assert.equal(Object.keys(run.store.meta.results).length, 3);
  });
});

describe('--max-agents', () => {
  it('refuses a fork past the most live agents: the run fails, no worker starts', async () => {
    const state = freshState();
    state.options.max_agents = 10;
    const workers = Array.from({ length: 50 }, () => ({ target: 'W', attributes: {} }));
    const run = await runFake(
      { START: { kind: 'fork', next: 'END', workers }, W: { kind: 'result', payload: 'w' } },
      { state },
    );
    assert.equal(run.output.status, 'failed');
    assert.match(
      run.output.error!,
      /^START: <fork> of 50 worker\(s\) would make 51 live agents \(1 now\), past --max-agents 10/,
    );
    assert.equal(run.store.agents.size, 1);
    assert.equal(run.started.length, 1);
  });

  it('counts the workers of a fork the gate keeps, before asking', async () => {
    const run = await runFake(script(5, 1), { state: gated(1, 3) });
    assert.equal(run.output.status, 'failed');
    assert.match(run.output.error!, /would make 6 live agents/);
  });

  it('lets a fork within the limit go', async () => {
    const state = freshState();
    state.options.max_agents = 3;
    const workers = [
      { target: 'W', attributes: {} },
      { target: 'W', attributes: {} },
    ];
    const run = await runFake(
      {
        START: { kind: 'fork', next: 'END', workers },
        W: { kind: 'result', payload: 'w' },
        END: { kind: 'result', payload: 'e' },
      },
      { state },
    );
    assert.equal(run.output.status, 'completed');
  });
});
