import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MAX_REMINDERS,
  MAX_RETRIES,
  RATE_LIMIT_BOUND_MS,
  nextTurn,
  startTurns,
  type TurnState,
} from '../../src/runtime/markdown-turns.js';

const failed = {
  type: 'turn.failed',
  usageLimit: false,
  aborted: false,
  sessionInUse: false,
} as const;
const unusable = (session: string | null) =>
  ({ type: 'reply.unusable', session, problem: 'no tag', remindable: true }) as const;

function turn(state: TurnState, event: Parameters<typeof nextTurn>[1]): TurnState {
  const action = nextTurn(state, event);
  assert.equal(action.next, 'turn');
  return (action as { state: TurnState }).state;
}

describe('markdown turn policy', () => {
  it('starts by resuming the session, branching from the caller, or the reserved fresh id', () => {
    assert.deepEqual(startTurns({ session: 's', branchFrom: null }).plan, {
      kind: 'resume',
      session: 's',
    });
    assert.deepEqual(startTurns({ session: null, branchFrom: 'caller', next_session: 'n' }).plan, {
      kind: 'branch',
      from: 'caller',
      id: 'n',
    });
    assert.deepEqual(startTurns({ session: null, branchFrom: null, next_session: 'n' }).plan, {
      kind: 'fresh',
      id: 'n',
    });
  });

  it('retries a failed turn from the starting session, then gives up', () => {
    let s = startTurns({ session: null, branchFrom: null, next_session: 'n' });
    s = turn({ ...s, plan: { kind: 'resume', session: 'after-a-reminder' } }, failed);
    assert.deepEqual(s.plan, { kind: 'fresh', id: 'n' }, 'a retry starts over');
    for (let i = 1; i < MAX_RETRIES; i++) s = turn(s, failed);
    assert.equal(s.retries, MAX_RETRIES);
    assert.deepEqual(nextTurn(s, failed), { next: 'give-up', reason: 'retries' });
  });

  it('a turn refused for rate or load is tried again uncounted, until the bound; any other failure ends the streak', () => {
    const limited = (now: number) => ({ ...failed, limited: true, now });
    let state = startTurns({ session: null, branchFrom: null, next_session: 'n' });
    for (let i = 0; i < 15; i++) state = turn(state, limited(1000 + i * 60_000));
    assert.equal(state.retries, 0, 'never counted as retries');
    assert.equal(state.limitedSince, 1000);
    assert.deepEqual(state.plan, state.first);
    assert.deepEqual(nextTurn(state, limited(1000 + RATE_LIMIT_BOUND_MS)), {
      next: 'give-up',
      reason: 'rate-limited',
    });
    const after = turn(turn(state, failed), limited(2_000_000));
    assert.equal(after.limitedSince, 2_000_000, 'a crash in between starts the count again');
    assert.equal(after.retries, 1);
  });

  it('never retries after a usage limit or a stop', () => {
    const s = startTurns({ session: 's', branchFrom: null });
    assert.deepEqual(nextTurn(s, { ...failed, usageLimit: true }), {
      next: 'give-up',
      reason: 'usage-limit',
    });
    assert.deepEqual(nextTurn(s, { ...failed, aborted: true }), {
      next: 'give-up',
      reason: 'aborted',
    });
  });

  it('continues a reserved session that already exists, without counting a retry', () => {
    const s = startTurns({ session: null, branchFrom: 'caller', next_session: 'n' });
    const action = nextTurn(s, { ...failed, sessionInUse: true });
    assert.equal(action.next === 'turn' && action.why, 'resume-reserved');
    const after = (action as { state: TurnState }).state;
    assert.deepEqual(after.plan, { kind: 'resume', session: 'n' });
    assert.deepEqual(after.first, after.plan, 'later retries resume it too');
    assert.equal(after.retries, 0);
    assert.equal(
      nextTurn(after, { ...failed, sessionInUse: true }).next === 'turn' &&
        (nextTurn(after, { ...failed, sessionInUse: true }) as { why: string }).why,
      'retry',
      'a resumed session in use is an ordinary failure',
    );
  });

  it('reminds in the session the reply ran in, then gives up after the last reminder', () => {
    let s = turn(
      startTurns({ session: null, branchFrom: null, next_session: 'n' }),
      unusable('s1'),
    );
    assert.deepEqual(s.plan, { kind: 'resume', session: 's1' });
    assert.equal(s.remind, 'no tag');
    for (let i = 1; i < MAX_REMINDERS; i++) s = turn(s, unusable('s1'));
    assert.deepEqual(nextTurn(s, unusable('s1')), { next: 'give-up', reason: 'reminders' });
  });

  it('gives up at once on an error no reminder can fix', () => {
    const s = startTurns({ session: 's', branchFrom: null });
    assert.deepEqual(nextTurn(s, { ...unusable('s'), remindable: false }), {
      next: 'give-up',
      reason: 'not-remindable',
    });
  });

  it('a retry after a reminder sends the prompt without the reminder', () => {
    const reminded = turn(startTurns({ session: 's', branchFrom: null }), unusable('s'));
    assert.equal(turn(reminded, failed).remind, undefined);
  });

  it('a turn that failed on its model goes on with the next fallback model, uncounted; then the model is asked again', () => {
    const onModel = { ...failed, limited: true, onModel: true, now: 1000 };
    let s = startTurns({ session: null, branchFrom: null, next_session: 'n' }, 2);
    assert.equal(s.modelAt, 0);
    let action = nextTurn({ ...s, plan: { kind: 'resume', session: 'x' } }, onModel);
    assert.equal(action.next === 'turn' && action.why, 'fallback');
    s = (action as { state: TurnState }).state;
    assert.deepEqual([s.modelAt, s.retries, s.plan], [1, 0, s.first]);
    s = turn(s, onModel);
    assert.equal(s.modelAt, 2);
    // Every model refused: a rate-limited wait, and the state's own model first again.
    action = nextTurn(s, onModel);
    assert.equal(action.next === 'turn' && action.why, 'rate-limited');
    assert.equal((action as { state: TurnState }).state.modelAt, 0);
  });

  it('an unavailable model falls back; a refusal with no fallback left gives up at once', () => {
    const unavailable = { ...failed, onModel: true, refused: true };
    const s = turn(startTurns({ session: 's', branchFrom: null }, 1), unavailable);
    assert.equal(s.modelAt, 1);
    assert.deepEqual(nextTurn(s, unavailable), { next: 'give-up', reason: 'refused' });
    assert.deepEqual(
      nextTurn(startTurns({ session: 's', branchFrom: null }), { ...failed, refused: true }),
      {
        next: 'give-up',
        reason: 'refused',
      },
    );
  });
});
