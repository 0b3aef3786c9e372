import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PendingAsk, StoredAgent } from '../../machines/types.js';
import { RaymondError } from '../../src/errors.js';
import { applyResumeAnswers } from '../../src/runtime/resume-answers.js';

const NOW = Date.parse('2026-01-02T00:00:00.000Z');

function asking(id: string, ask: Partial<PendingAsk> & { id: string }): StoredAgent {
  return {
    id,
    state: 'ASK.sh',
    session: null,
    branchFrom: null,
    stack: [],
    cwd: '/w',
    attributes: {},
    input: null,
    status: 'active',
    ask: { prompt: 'ok?', created_at: '2026-01-01T00:00:00.000Z', next: 'YES.sh', ...ask },
  };
}

const refused = (pattern: RegExp) => (err: unknown) =>
  err instanceof RaymondError &&
  err.code === 'ERR_ASK_ANSWER' &&
  err.file === '/s/r.json' &&
  pattern.test(err.message);

describe('applyResumeAnswers', () => {
  it('--input answers the oldest ask that has not run out of time: its agent goes on at next with the answer', () => {
    const agents = [
      asking('main', {
        id: 'ask_main_1',
        created_at: '2026-01-01T00:00:00.000Z',
        timeout_at: '2026-01-01T12:00:00.000Z',
        timeout_next: 'LATE.sh',
      }),
      asking('main_w1', { id: 'ask_w_2', created_at: '2026-01-01T01:00:00.000Z' }),
    ];
    const out = applyResumeAnswers(agents, { input: 'yes' }, 'r', '/s/r.json', NOW);
    assert.deepEqual(out.notes, []);
    assert.deepEqual(out.agents[0], agents[0], 'the expired ask is left for its timeout');
    assert.equal(out.agents[1]!.ask, undefined);
    assert.deepEqual(
      [out.agents[1]!.state, out.agents[1]!.input, out.agents[1]!.answered_ask],
      ['YES.sh', 'yes', 'ask_w_2'],
    );
    assert.deepEqual(
      out.answered,
      [{ agentId: 'main_w1', askId: 'ask_w_2', text: 'yes' }],
      'the answer given is reported, for the debug log',
    );
  });

  it('--answer ID=TEXT answers that ask; an expired one keeps its agent waiting for its timeout, with a note', () => {
    const agents = [
      asking('main', {
        id: 'ask_main_1',
        timeout_at: '2026-01-01T12:00:00.000Z',
        timeout_next: 'LATE.sh',
      }),
    ];
    const out = applyResumeAnswers(
      agents,
      { byId: [{ askId: 'ask_main_1', text: 'late' }] },
      'r',
      '/s/r.json',
      NOW,
    );
    assert.deepEqual(out.agents, agents);
    assert.deepEqual(out.notes, [
      'the ask ask_main_1 of main ran out of time at 2026-01-01T12:00:00.000Z; the answer is not used, and the agent goes to LATE.sh',
    ]);
  });

  it('refuses an answer to no pending ask, the same ask twice, and --input with nothing left to answer', () => {
    const agents = [asking('main', { id: 'ask_main_1' })];
    assert.throws(
      () =>
        applyResumeAnswers(agents, { byId: [{ askId: 'nope', text: 'x' }] }, 'r', '/s/r.json', NOW),
      refused(/no pending ask nope \(pending: ask_main_1 \(main\)\)/),
    );
    assert.throws(
      () =>
        applyResumeAnswers(
          agents,
          {
            byId: [
              { askId: 'ask_main_1', text: 'a' },
              { askId: 'ask_main_1', text: 'b' },
            ],
          },
          'r',
          '/s/r.json',
          NOW,
        ),
      refused(/is given twice/),
    );
    assert.throws(
      () =>
        applyResumeAnswers(
          agents,
          { input: 'x', byId: [{ askId: 'ask_main_1', text: 'a' }] },
          'r',
          '/s/r.json',
          NOW,
        ),
      refused(/has no other pending ask/),
    );
    assert.throws(
      () => applyResumeAnswers([], { input: 'x' }, 'r', '/s/r.json', NOW),
      refused(/has no pending ask \(it has none\)/),
    );
  });

  it('leaves agents as they are when no answer is given', () => {
    const agents = [asking('main', { id: 'ask_main_1' })];
    assert.deepEqual(applyResumeAnswers(agents, {}, 'r', '/s/r.json', NOW), {
      agents,
      notes: [],
      answered: [],
      gates: [],
    });
  });

  it('hands an answer to a cost gate to the run instead of applying it as input', () => {
    const gate = {
      kind: 'state' as const,
      where: 'A.md',
      forecast_usd: 1,
      spent_usd: 0,
      amount_usd: 0.5,
    };
    const agents = [asking('main', { id: 'ask_main_1', gate })];
    const out = applyResumeAnswers(agents, { input: 'yes' }, 'r', '/s/r.json', NOW);
    assert.deepEqual(out.gates, [{ askId: 'ask_main_1', text: 'yes' }]);
    assert.deepEqual(out.answered, []);
    assert.equal(out.agents[0], agents[0], 'the agent still waits at the gate');
  });
});
