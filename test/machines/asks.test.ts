import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerAsk, askExpired, expireAsk, pendingAsks } from '../../machines/asks.js';
import type { AgentRecord, PendingAsk } from '../../machines/types.js';

const ask = (over: Partial<PendingAsk> = {}): PendingAsk => ({
  id: 'ask_main_1',
  prompt: 'ok?',
  created_at: '2026-01-01T00:00:00.000Z',
  next: 'DO.md',
  ...over,
});
const agent = (over: Partial<AgentRecord> = {}): AgentRecord => ({
  id: 'main',
  state: 'START.md',
  session: 's1',
  branchFrom: null,
  stack: null,
  cwd: '/w',
  attributes: {},
  input: null,
  status: 'active',
  ask: ask(),
  ...over,
});

describe('answering and timing out asks', () => {
  it('an answer sends the agent to next with the answer as input and {{ask_id}} bound, session kept', () => {
    const after = answerAsk(agent(), 'yes');
    assert.deepEqual(
      [after.state, after.input, after.answered_ask, after.session, after.ask],
      ['DO.md', 'yes', 'ask_main_1', 's1', undefined],
    );
  });

  it('a timeout sends it to timeout_next with no input, or nowhere (undefined) without one', () => {
    const late = expireAsk(
      agent({ ask: ask({ timeout_at: '2026-01-01T01:00:00.000Z', timeout_next: 'LATE.md' }) }),
    );
    assert.deepEqual([late?.state, late?.input, late?.ask], ['LATE.md', null, undefined]);
    assert.equal(expireAsk(agent()), undefined);
  });

  it('knows when an ask ran out, and lists pending asks oldest first', () => {
    assert.equal(
      askExpired(
        ask({ timeout_at: '2026-01-01T01:00:00.000Z' }),
        Date.parse('2026-01-01T01:00:00.000Z'),
      ),
      true,
    );
    assert.equal(askExpired(ask(), Date.now()), false);
    const older = agent({
      id: 'main_w1',
      ask: ask({ id: 'ask_main_w1_0', created_at: '2025-12-31T00:00:00.000Z' }),
    });
    assert.deepEqual(
      pendingAsks([agent(), older, agent({ id: 'done', status: 'terminated' })]).map(
        (a) => a.agent_id,
      ),
      ['main_w1', 'main'],
    );
  });
});
