import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyDecision } from '../../machines/apply-decision.js';
import { stackFromArray } from '../../machines/frame-stack.js';
import { gateAsk, gateCrossed, gatePrompt, readGateAnswer } from '../../machines/gate.js';
import type { AgentRecord, GateAsk, ResolvedDecision } from '../../machines/types.js';

const stateGate: GateAsk = {
  kind: 'state',
  where: 'REVIEW.md',
  forecast_usd: 0.00042,
  spent_usd: 1.5,
  amount_usd: 1.5,
};

describe('cost gate: questions and answers', () => {
  it('reads yes, go on, stop and amounts; anything else is not understood', () => {
    for (const t of ['yes', ' Yes ', 'go on', 'Go  On', 'y', 'ok'])
      assert.deepEqual(readGateAnswer(t), { kind: 'go' }, t);
    for (const t of ['stop', 'STOP', 'no'])
      assert.deepEqual(readGateAnswer(t), { kind: 'stop' }, t);
    assert.deepEqual(readGateAnswer('$25'), { kind: 'amount', usd: 25 });
    assert.deepEqual(readGateAnswer('2.5'), { kind: 'amount', usd: 2.5 });
    assert.deepEqual(readGateAnswer('$ .5'), { kind: 'amount', usd: 0.5 });
    for (const t of ['maybe', '0', '$0', '-3', '', '25 dollars', '1e3'])
      assert.deepEqual(readGateAnswer(t), { kind: 'unknown' }, t);
  });

  it('crosses only when spent plus a paid forecast passes the amount', () => {
    assert.equal(gateCrossed(0.5, 0.6, 1), true);
    assert.equal(gateCrossed(0.5, 0.5, 1), false);
    assert.equal(gateCrossed(5, 0, 1), false, 'a free step never asks');
  });

  it('says the state, the forecast, the spent and the amount, never rounding to zero', () => {
    assert.equal(
      gatePrompt(stateGate),
      'Cost gate: REVIEW.md is forecast at $0.00042 (p90); with $1.50 spent, that passes --confirm-over $1.50. Go on? Answer yes (go on), stop, or a new amount such as 10 or $10.',
    );
    const ask = gateAsk('main_w1', 'REVIEW.md', stateGate, Date.parse('2026-01-01T00:00:00Z'));
    assert.equal(ask.id, `ask_main_w1_${Date.parse('2026-01-01T00:00:00Z')}`);
    assert.equal(ask.next, 'REVIEW.md');
  });

  it('a state gate keeps the input and the answered ask for when the state runs', () => {
    const record: AgentRecord = {
      id: 'main',
      state: 'REVIEW.md',
      session: 's1',
      branchFrom: null,
      stack: stackFromArray([]),
      cwd: '/w',
      attributes: {},
      input: 'the diff',
      status: 'active',
      answered_ask: 'ask_main_1',
    };
    const ask = gateAsk('main', 'REVIEW.md', stateGate, 1);
    const decision = {
      kind: 'ask',
      next: 'REVIEW.md',
      prompt: ask.prompt,
      ask,
    } as ResolvedDecision;
    const applied = applyDecision(record, decision, null);
    assert.equal(applied.outcome, 'ask');
    assert.equal(applied.record.input, 'the diff');
    assert.equal(applied.record.answered_ask, 'ask_main_1');
    assert.equal(applied.record.state, 'REVIEW.md');
    assert.equal(applied.record.session, 's1');
  });

  it('applies a fork with reserved ids only where one was reserved: a script worker starts with none', () => {
    const record: AgentRecord = {
      id: 'main',
      state: 'START.sh',
      session: null,
      branchFrom: null,
      stack: null,
      cwd: '/p',
      attributes: {},
      input: null,
      status: 'active',
    };
    const decision = {
      kind: 'fork',
      next: 'NEXT.sh',
      workers: ['W.sh', 'W.md'].map((target, i) => ({
        id: `main_w${i + 1}`,
        target,
        attributes: {},
        taskFolder: { path: `/t/main_w${i + 1}`, number: 1 },
      })),
    } as unknown as ResolvedDecision;
    const applied = applyDecision(record, decision, null, ['own', null, 'for-md']);
    assert.equal(applied.record.next_session, 'own');
    assert.equal(applied.spawns[0]!.nextSession, undefined);
    assert.equal(applied.spawns[1]!.nextSession, 'for-md');
    assert.ok(!('nextSession' in applied.spawns[0]!), 'no key, so the state file has none');
  });
});
