import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AnyActorRef, InspectionEvent } from 'xstate';
import {
  agentIn as agent,
  freshState,
  runFake,
  type FakeDecision,
  type FakeScript,
} from '../helpers/fake-actors.js';
import { stackDepth, stackToArray } from '../../machines/frame-stack.js';
import type { AgentRecord, WorkflowState } from '../../machines/types.js';
import type { SupervisorEmitted, SupervisorEvent } from '../../machines/supervisor.machine.js';

describe('agent machine: the effect of each tag', () => {
  it('goto moves on in the same session and carries input for one state', async () => {
    const seen: Array<string | null> = [];
    const run = await runFake(
      {
        START: { kind: 'goto', target: 'NEXT', input: 'hello' },
        NEXT: (r) => (seen.push(r.input, r.session), { kind: 'goto', target: 'LAST' }),
        LAST: (r) => (seen.push(r.input), { kind: 'result', payload: 'ok' }),
      },
      { session: (r) => (r.state === 'START' ? 's1' : r.session) },
    );
    assert.equal(run.output.status, 'completed');
    assert.deepEqual(seen, ['hello', 's1', null]);
    assert.deepEqual(run.store.meta.results, { main: 'ok' });
  });

  it('reset drops the session, keeps the stack and changes directory', async () => {
    const seen: AgentRecord[] = [];
    const run = await runFake(
      {
        START: { kind: 'call', target: 'SUB', returnTo: 'BACK' },
        SUB: (r, n) => (
          seen.push(r),
          n === 1
            ? { kind: 'reset', target: 'SUB', cd: '/elsewhere' }
            : { kind: 'result', payload: 'from sub' }
        ),
        BACK: (r) => (seen.push(r), { kind: 'result', payload: `back with ${r.input}` }),
      },
      { session: (r) => `session-of-${r.state}` },
    );
    assert.equal(run.output.status, 'completed');
    const [sub1, sub2, back] = seen;
    assert.equal(stackDepth(sub1!.stack), 1);
    assert.equal(sub2!.session, null, 'reset starts fresh');
    assert.equal(stackDepth(sub2!.stack), 1, 'reset keeps the return frame');
    assert.equal(sub2!.cwd, '/elsewhere');
    assert.equal(back!.input, 'from sub');
    assert.equal(back!.session, 'session-of-START', 'return resumes the caller session');
    assert.equal(run.store.meta.results.main, 'back with from sub');
  });

  it('call pushes a frame, branches from the caller, and result pops it', async () => {
    const seen: AgentRecord[] = [];
    const run = await runFake(
      {
        START: { kind: 'call', target: 'CHILD', returnTo: 'AFTER', input: 'task' },
        CHILD: (r) => (seen.push(r), { kind: 'goto', target: 'CHILD2' }),
        CHILD2: (r) => (seen.push(r), { kind: 'result', payload: 'child says hi' }),
        AFTER: (r) => (seen.push(r), { kind: 'result', payload: 'done' }),
      },
      {
        session: (r) =>
          r.state === 'START' ? 'caller' : r.state === 'CHILD' ? 'branch' : r.session,
      },
    );
    assert.equal(run.output.status, 'completed');
    const [child, child2, after] = seen;
    assert.deepEqual(stackToArray(child!.stack), [{ state: 'AFTER', session: 'caller' }]);
    assert.equal(child!.branchFrom, 'caller');
    assert.equal(child!.session, null);
    assert.equal(child!.input, 'task');
    assert.equal(child2!.session, 'branch', 'goto inside the callee stays in its branch');
    assert.equal(child2!.branchFrom, null, 'the branch is used up by the first markdown turn');
    assert.equal(after!.stack, null);
    assert.equal(after!.session, 'caller');
    assert.equal(after!.input, 'child says hi');
  });

  it('function pushes a frame and starts the callee with no session', async () => {
    const seen: AgentRecord[] = [];
    await runFake(
      {
        START: { kind: 'function', target: 'EVAL', returnTo: 'AFTER' },
        EVAL: (r) => (seen.push(r), { kind: 'result', payload: 'YES' }),
        AFTER: (r) => (seen.push(r), { kind: 'result', payload: r.input ?? '' }),
      },
      { session: (r) => (r.state === 'START' ? 'caller' : 'other') },
    );
    assert.equal(seen[0]!.branchFrom, null);
    assert.equal(seen[0]!.session, null);
    assert.equal(seen[1]!.session, 'caller');
  });

  it('nested calls unwind one frame per result', async () => {
    const depths: number[] = [];
    const run = await runFake({
      START: { kind: 'call', target: 'A', returnTo: 'END' },
      A: (r) => (depths.push(stackDepth(r.stack)), { kind: 'call', target: 'B', returnTo: 'A2' }),
      B: (r) => (depths.push(stackDepth(r.stack)), { kind: 'result', payload: 'b' }),
      A2: (r) => (depths.push(stackDepth(r.stack)), { kind: 'result', payload: `a+${r.input}` }),
      END: (r) => ({ kind: 'result', payload: `end:${r.input}` }),
    });
    assert.deepEqual(depths, [1, 2, 1]);
    assert.equal(run.store.meta.results.main, 'end:a+b');
  });

  it('fork names workers with persistent per-parent counters and gives them attributes, cwd and input', async () => {
    let dispatches = 0;
    const run = await runFake({
      START: () => {
        dispatches++;
        return dispatches < 3
          ? {
              kind: 'fork',
              next: 'START',
              workers: [
                { target: 'WORKER.sh', attributes: { item: `i${dispatches}` }, input: 'in' },
              ],
            }
          : {
              kind: 'fork',
              next: 'DONE',
              workers: [{ target: 'ANALYZE.md', attributes: {}, cd: '/w' }],
            };
      },
      'WORKER.sh': (r) => ({
        kind: 'result',
        payload: `${r.id}:${r.attributes.item}:${r.input}:${stackDepth(r.stack)}`,
      }),
      'ANALYZE.md': (r) => ({ kind: 'result', payload: `${r.id}@${r.cwd}` }),
      DONE: { kind: 'result', payload: 'main done' },
    });
    assert.deepEqual(run.store.meta.results, {
      main_worker1: 'main_worker1:i1:in:0',
      main_worker2: 'main_worker2:i2:in:0',
      main_analyz3: 'main_analyz3@/w',
      main: 'main done',
    });
    assert.deepEqual(run.store.meta.fork_counters, { main: 3 });
  });

  it('a worker forking gets its own counter', async () => {
    const run = await runFake({
      START: { kind: 'fork', next: 'END', workers: [{ target: 'W', attributes: {} }] },
      W: (r) =>
        r.id === 'main_w1'
          ? { kind: 'fork', next: 'END', workers: [{ target: 'PROCESS', attributes: {} }] }
          : { kind: 'result', payload: r.id },
      PROCESS: (r) => ({ kind: 'result', payload: r.id }),
      END: (r) => ({ kind: 'result', payload: r.id }),
    });
    assert.deepEqual(Object.keys(run.store.meta.results).sort(), [
      'main',
      'main_w1',
      'main_w1_proces1',
    ]);
  });

  it('resumes an agent below the top of its stack in awaiting-child', async () => {
    const state = freshState('CHILD', {
      stack: [{ state: 'AFTER', session: 'caller' }],
      input: 'resumed',
    });
    const run = await runFake(
      {
        CHILD: (r) => ({ kind: 'result', payload: `child got ${r.input}` }),
        AFTER: (r) => ({ kind: 'result', payload: `${r.input} / ${r.session}` }),
      },
      { state },
    );
    assert.equal(run.store.meta.results.main, 'child got resumed / caller');
    assert.deepEqual(run.started, ['main:CHILD', 'main:AFTER']);
  });

  it('every state written says where each agent is: the callee state with the frame on the stack', async () => {
    const run = await runFake({
      START: { kind: 'call', target: 'CHILD', returnTo: 'AFTER' },
      CHILD: { kind: 'result', payload: 'x' },
      AFTER: { kind: 'result', payload: 'y' },
    });
    const snapshots = run.writes.map((w) => agent(JSON.parse(w) as WorkflowState, 'main'));
    const during = snapshots.find((a) => a.state === 'CHILD');
    assert.ok(during, 'a snapshot taken while the callee was current');
    assert.deepEqual(during.stack, [{ state: 'AFTER', session: null }]);
  });
});

describe('agent machine: cross-workflow tags', () => {
  const other = { spec: '../other', scope: '/wf/other', name: 'other' };

  it("a workflow call moves the agent into the callee's scope and directory, and the result brings back the caller's", async () => {
    const seen: AgentRecord[] = [];
    const run = await runFake(
      {
        START: {
          kind: 'function',
          target: 'O_START',
          returnTo: 'AFTER',
          workflow: other,
          cd: '/work/wt',
        },
        O_START: (r) => (seen.push(r), { kind: 'call', target: 'O_SUB', returnTo: 'O_END' }),
        O_SUB: (r) => (seen.push(r), { kind: 'result', payload: 'sub' }),
        O_END: (r) => (seen.push(r), { kind: 'result', payload: `other: ${r.input}` }),
        AFTER: (r) => (seen.push(r), { kind: 'result', payload: r.input ?? '' }),
      },
      { state: freshState('START', { cwd: '/home/project' }) },
    );
    assert.equal(run.output.status, 'completed');
    const [start, sub, end, after] = seen;
    assert.deepEqual(
      [start!.scope, start!.workflow_depth, start!.cwd],
      ['/wf/other', 1, '/work/wt'],
    );
    assert.deepEqual(stackToArray(start!.stack), [
      { state: 'AFTER', session: null, workflow: { scope: null, cwd: '/home/project', depth: 0 } },
    ]);
    assert.deepEqual(
      [sub!.scope, stackToArray(sub!.stack).at(-1)],
      ['/wf/other', { state: 'O_END', session: null }],
      'a plain call inside the callee stays in its scope',
    );
    assert.deepEqual([end!.scope, end!.cwd], ['/wf/other', '/work/wt']);
    assert.deepEqual(
      [after!.scope, after!.workflow_depth, after!.cwd, after!.input],
      [undefined, undefined, '/home/project', 'other: sub'],
    );
  });

  it("a workflow fork gives the worker the callee's scope one level deeper; a reset-workflow clears the stack and the depth", async () => {
    const seen: AgentRecord[] = [];
    const run = await runFake({
      START: { kind: 'call', target: 'MID', returnTo: 'NEVER' },
      MID: {
        kind: 'fork',
        next: 'GO',
        workers: [{ id: 'main_other1', target: 'O_W', attributes: {}, workflow: other }],
      },
      O_W: (r) => (seen.push(r), { kind: 'result', payload: 'worker' }),
      GO: { kind: 'reset', target: 'O_R', workflow: other },
      O_R: (r) => (seen.push(r), { kind: 'result', payload: 'reset done' }),
      NEVER: { kind: 'result', payload: 'returned: wrong' },
    });
    assert.equal(run.output.status, 'completed');
    const worker = seen.find((r) => r.id === 'main_other1')!;
    assert.deepEqual([worker.scope, worker.workflow_depth, worker.stack], ['/wf/other', 1, null]);
    const reset = seen.find((r) => r.id === 'main')!;
    assert.deepEqual(
      [reset.scope, reset.workflow_depth, reset.stack],
      ['/wf/other', undefined, null],
    );
    assert.deepEqual(run.store.meta.results, { main_other1: 'worker', main: 'reset done' });
  });
});

describe('agent machine: <ask>', () => {
  const asked = (id: string, next: string): FakeDecision => ({
    kind: 'ask',
    next,
    prompt: 'ok?',
    ask: { id, prompt: 'ok?', created_at: '2026-01-01T00:00:00.000Z', next },
  });

  it('with stopWhenAsking the run ends as asking once every live agent waits, with the ask in the store', async () => {
    const run = await runFake(
      { START: asked('ask_main_1', 'DO'), DO: { kind: 'result', payload: 'no' } },
      { stopWhenAsking: true },
    );
    assert.equal(run.output.status, 'asking');
    assert.equal(run.store.agents.get('main')!.ask!.id, 'ask_main_1');
    assert.equal(run.store.asking, 1);
    assert.deepEqual(
      run.reports
        .filter((e) => e.type === 'ask.created')
        .map((e) => (e as { ask: { agent_id: string } }).ask.agent_id),
      ['main'],
    );
  });

  it('otherwise it waits, and an answer sends the asking frame (a callee here) on with the answer as input, while the others ran', async () => {
    const seen: AgentRecord[] = [];
    const answered: SupervisorEmitted[] = [];
    const run = await runFake(
      {
        START: {
          kind: 'fork',
          next: 'CALL',
          workers: [{ id: 'main_w1', target: 'W', attributes: {} }],
        },
        W: { kind: 'result', payload: 'worker done' },
        CALL: { kind: 'call', target: 'Q', returnTo: 'END' },
        Q: asked('ask_main_2', 'A'),
        A: (r) => (seen.push(r), { kind: 'result', payload: `answer ${r.input}` }),
        END: (r) => ({ kind: 'result', payload: `end: ${r.input}` }),
      },
      {
        onReport: (e, send) => {
          if (e.type === 'ask.answered') answered.push(e);
          if (e.type === 'ask.created')
            setTimeout(() => send({ type: 'run.answer', askId: e.ask.id, text: 'yes' }), 20);
        },
      },
    );
    assert.equal(run.output.status, 'completed');
    assert.deepEqual(
      answered,
      [{ type: 'ask.answered', agentId: 'main', askId: 'ask_main_2', expired: false, text: 'yes' }],
      'the answer is reported with its text (the debug log keeps it for raymond record)',
    );
    assert.deepEqual(run.store.meta.results, { main_w1: 'worker done', main: 'end: answer yes' });
    assert.deepEqual(
      [seen[0]!.input, seen[0]!.answered_ask, stackDepth(seen[0]!.stack)],
      ['yes', 'ask_main_2', 1],
    );
  });

  it('an expired ask goes to timeout_next; one without fails the run', async () => {
    const timed = (id: string, timeoutNext?: string): FakeDecision => ({
      kind: 'ask',
      next: 'A',
      prompt: 'q',
      ask: {
        id,
        prompt: 'q',
        created_at: '2026-01-01T00:00:00.000Z',
        timeout_at: '2026-01-01T00:00:01.000Z',
        next: 'A',
        ...(timeoutNext ? { timeout_next: timeoutNext } : {}),
      },
    });
    const expireOnAsk = (e: SupervisorEmitted, send: (e: SupervisorEvent) => void) =>
      e.type === 'ask.created' &&
      send({ type: 'ask.expire', agentId: e.ask.agent_id, askId: e.ask.id });
    const late = await runFake(
      {
        START: timed('ask_main_3', 'LATE'),
        LATE: (r) => ({ kind: 'result', payload: `late ${r.input}` }),
      },
      { onReport: expireOnAsk },
    );
    assert.deepEqual(
      [late.output.status, late.store.meta.results.main],
      ['completed', 'late null'],
    );
    const failed = await runFake({ START: timed('ask_main_4') }, { onReport: expireOnAsk });
    assert.equal(failed.output.status, 'failed');
    assert.match(
      failed.output.error!,
      /the ask ask_main_4 got no answer by 2026-01-01T00:00:01.000Z and has no timeout_next/,
    );
  });
});

describe('agent machine: deep return stacks', () => {
  /** A script that calls itself `depth` times, then counts the returns on the way back. */
  const recursion = (depth: number): FakeScript => ({
    START: (r) =>
      stackDepth(r.stack) < depth
        ? { kind: 'call', target: 'START', returnTo: 'BACK' }
        : { kind: 'result', payload: '0' },
    BACK: (r) => ({ kind: 'result', payload: String(Number(r.input) + 1) }),
  });

  it('a 2,000-deep recursion completes with at most two frame actors alive per agent: the bottom frame and the top', async () => {
    const frames = new Set<AnyActorRef>();
    let most = 0;
    const inspect = (e: InspectionEvent) => {
      const ref = e.actorRef as AnyActorRef;
      if (e.type !== '@xstate.actor' || !/^main(@\d+)?$/.test(ref.id)) return;
      for (const f of frames) if (f.getSnapshot().status !== 'active') frames.delete(f);
      frames.add(ref);
      most = Math.max(most, frames.size);
    };
    const run = await runFake(recursion(2000), { delayMs: 0, inspect, timeoutMs: 60_000 });
    assert.equal(run.output.status, 'completed');
    assert.equal(run.store.meta.results.main, '2000');
    assert.equal(most, 2);
  });

  it('resumes an agent 2,000 frames deep as two frame actors, not 2,001 nested ones, and unwinds it', async () => {
    const stack = Array.from({ length: 2000 }, () => ({ state: 'BACK', session: null }));
    const run = await runFake(recursion(2000), {
      state: freshState('START', { stack }),
      delayMs: 0,
      timeoutMs: 60_000,
    });
    assert.equal(run.output.status, 'completed');
    assert.equal(run.store.meta.results.main, '2000');
    assert.equal(run.started.length, 2001, 'the callee, then one step per frame on the way back');
  });
});
