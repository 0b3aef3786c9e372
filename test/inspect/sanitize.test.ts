import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pushFrame } from '../../machines/frame-stack.js';
import type { AgentRecord } from '../../machines/types.js';
import { globToRegExp } from '../../src/inspect/glob.js';
import { sanitizeContext, sanitizeEvent, sanitizeOutput } from '../../src/inspect/sanitize.js';

const record: AgentRecord = {
  id: 'main_worker2',
  state: 'WORK.md',
  session: 's-1',
  branchFrom: null,
  stack: pushFrame(pushFrame(null, { state: 'END.md', session: null }), {
    state: 'AFTER.md',
    session: 's-0',
  }),
  cwd: '/repo',
  attributes: { secret: 'api key 123' },
  input: 'the secret prompt input',
  status: 'active',
};
const secret = /secret|api key/;

describe('sanitizeContext', () => {
  it('reduces an agent frame to ids, states and session, and keeps everything with full', () => {
    const ctx = { record, depth: 2, callee: null };
    assert.deepEqual(sanitizeContext(ctx, false), {
      agent: 'main_worker2',
      state: 'WORK.md',
      status: 'active',
      stack: 2,
      returnTo: 'AFTER.md',
      session: 's-1',
      cwd: '/repo',
      depth: 2,
    });
    assert.deepEqual((sanitizeContext(ctx, true) as { record: unknown }).record, {
      ...record,
      stack: { depth: 2, top: { state: 'AFTER.md', session: 's-0' } },
    });
  });

  it('shows a deep return stack by its depth and top frame, in both modes', () => {
    let stack: AgentRecord['stack'] = null;
    for (let i = 0; i < 20_000; i++) stack = pushFrame(stack, { state: `R${i}.sh`, session: null });
    const ctx = { record: { ...record, stack }, depth: 20_000, callee: null };
    assert.equal(JSON.stringify(sanitizeContext(ctx, false)).includes('R19999.sh'), true);
    assert.equal(
      JSON.stringify(sanitizeContext(ctx, true)).includes('R19998.sh'),
      false,
      'not the frames below the top',
    );
  });

  it('summarizes the supervisor, whose store holds Maps, with results only when full', () => {
    const store = {
      meta: { status: 'running', total_cost_usd: 0.5, results: { main_worker1: 'secret result' } },
      agents: new Map([['main', record]]),
    };
    const ctx = {
      work: {
        store,
        slots: {
          running: 2,
          holders: { items: [1], head: 0 },
          others: { items: [1, 2, 3], head: 2 },
        },
      },
      version: 7,
      persisted: 6,
    };
    assert.deepEqual(sanitizeContext(ctx, false), {
      status: 'running',
      total_cost_usd: 0.5,
      agents: 1,
      running: 2,
      queued: 2,
      version: 7,
      persisted: 6,
    });
    assert.deepEqual((sanitizeContext(ctx, true) as { results: object }).results, {
      main_worker1: 'secret result',
    });
  });

  it('passes an already sanitized context through unchanged', () => {
    const once = sanitizeContext({ record, depth: 0, callee: null }, false);
    assert.deepEqual(sanitizeContext(once, false), once);
  });
});

describe('sanitizeEvent and sanitizeOutput', () => {
  it('keeps the tag and target of a step, never its payload, input or attributes', () => {
    const event = {
      type: 'step.done',
      agentId: 'main',
      from: 'A.md',
      costUsd: 0.01,
      outcome: 'continue',
      decision: { kind: 'result', payload: 'secret result' },
      record,
      spawns: [],
    };
    const out = sanitizeEvent(event, false);
    assert.deepEqual(out.decision, { tag: 'result' });
    assert.equal(out.costUsd, 0.01);
    assert.equal(out.agentId, 'main');
    assert.doesNotMatch(JSON.stringify(out), secret);
    assert.match(JSON.stringify(sanitizeEvent(event, true)), /secret result/);
  });

  it('drops free text of unknown events unless full', () => {
    const event = { type: 'x.y', note: 'secret text', n: 3 };
    assert.deepEqual(sanitizeEvent(event, false), { type: 'x.y', n: 3 });
    assert.deepEqual(sanitizeEvent(event, true), event);
  });

  it('summarizes a step output and a frame output', () => {
    const step = {
      decision: {
        kind: 'fork',
        next: 'END.sh',
        workers: [{ target: 'W.sh', attributes: { secret: 'x' } }],
      },
      session: null,
      costUsd: 0,
    };
    assert.deepEqual(sanitizeOutput(step, false), {
      tag: 'fork',
      next: 'END.sh',
      workers: ['W.sh'],
      session: null,
      costUsd: 0,
    });
    const frame = sanitizeOutput({ kind: 'returned', record }, false);
    assert.equal((frame as { agent: string }).agent, 'main_worker2');
    assert.doesNotMatch(JSON.stringify(frame), secret);
  });
});

describe('globToRegExp', () => {
  for (const [glob, yes, no] of [
    [
      'main_worker1*',
      ['main_worker1', 'main_worker12', 'main_worker1_x2'],
      ['main_worker2', 'main'],
    ],
    ['main_w?', ['main_w1'], ['main_w10', 'main']],
    ['main_worker{1,3}', ['main_worker1', 'main_worker3'], ['main_worker2', 'main_worker13']],
    ['a.b', ['a.b'], ['axb']],
  ] as const) {
    it(`${glob}`, () => {
      const re = globToRegExp(glob);
      for (const id of yes) assert.ok(re.test(id), `${glob} should match ${id}`);
      for (const id of no) assert.ok(!re.test(id), `${glob} should not match ${id}`);
    });
  }
});
