import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ResolvedDecision } from '../../machines/types.js';
import type { StepDependencies } from '../../src/runtime/step-context.js';
import { endsWarmth, freshSessions, stepDebug } from '../../src/runtime/step-context.js';
import type { DebugLog, StepDebug } from '../../src/state/debug-log.js';

const agent = (state: string) => ({
  id: 'main',
  state,
  session: null,
  branchFrom: null,
  stack: null,
  cwd: '/w',
  attributes: {},
  input: null,
  status: 'active' as const,
});

/** A resolved fork to workers whose first states are `targets` (only their targets matter here). */
const forkTo = (...targets: string[]) =>
  ({
    kind: 'fork',
    next: 'N.md',
    workers: targets.map((target, i) => ({
      id: `main_w${i + 1}`,
      target,
      attributes: {},
      taskFolder: { path: `/t/main_w${i + 1}`, number: 1 },
    })),
  }) as unknown as ResolvedDecision;

describe('freshSessions', () => {
  it('reserves one new session id for the agent, and one more per forked worker whose first state is markdown, all distinct', () => {
    assert.equal(freshSessions({ kind: 'goto', target: 'A' } as ResolvedDecision).length, 1);
    const ids = freshSessions(forkTo('W.md', 'W.md'));
    assert.equal(ids.length, 3);
    assert.equal(new Set(ids).size, 3);
    for (const id of ids)
      assert.match(
        id ?? '',
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
  });

  it('reserves none for a worker whose first state is a script: it never starts a session', () => {
    const ids = freshSessions(forkTo('W.sh', 'W.md', 'W.bat'));
    assert.equal(ids.length, 4);
    assert.equal(ids[1], null);
    assert.equal(ids[3], null);
    assert.equal(typeof ids[0], 'string');
    assert.equal(typeof ids[2], 'string');
  });
});

describe('endsWarmth', () => {
  const decision = (data: object) => data as unknown as ResolvedDecision;

  it('keeps the live process of an agent that goes on in its session and waits only for a slot', () => {
    assert.equal(endsWarmth(decision({ kind: 'goto', target: 'B.md' })), false);
    assert.equal(endsWarmth(forkTo('W.md')), false, 'a fork parent going on with next');
  });

  it('lets it go when the session ends or the agent waits for an answer, a callee or its workers', () => {
    for (const kind of ['result', 'reset', 'ask', 'call', 'function'])
      assert.equal(endsWarmth(decision({ kind })), true, kind);
    assert.equal(
      endsWarmth(decision({ ...forkTo('W.md'), join: true })),
      true,
      'a fork that joins',
    );
  });
});

describe('stepDebug', () => {
  it('opens no debug files without a debug log, and names the state and its kind with one', () => {
    assert.equal(stepDebug({} as StepDependencies, agent('A.md')), undefined);
    const opened: string[] = [];
    const debug = {
      step: (id: string, state: string, kind: string) => (
        opened.push(`${id} ${state} ${kind}`),
        {} as StepDebug
      ),
    } as unknown as DebugLog;
    stepDebug({ debug } as StepDependencies, agent('A.md'))!();
    stepDebug({ debug } as StepDependencies, agent('B.sh'))!();
    assert.deepEqual(opened, ['main A.md markdown', 'main B.sh script']);
  });
});
