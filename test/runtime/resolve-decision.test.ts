import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MAX_STACK_DEPTH, pushFrame } from '../../machines/frame-stack.js';
import type { FrameStack } from '../../machines/types.js';
import { RaymondError } from '../../src/errors.js';
import { resolveDecision } from '../../src/runtime/resolve-decision.js';
import { stepWorld, type StepWorld } from '../helpers/step-deps.js';

const WHERE = 'START.sh';

describe('resolveDecision', () => {
  let w: StepWorld;
  before(async () => {
    w = await stepWorld({
      'START.sh': '#!/bin/sh\n',
      'NEXT.sh': '#!/bin/sh\n',
      'W.md': 'work',
      'BACK.sh': '#!/bin/sh\n',
    });
    mkdirSync(join(w.wf, 'sub'));
    mkdirSync(join(w.dir, 'other'));
    writeFileSync(join(w.dir, 'other', 'START.sh'), '#!/bin/sh\n');
  });
  after(() => w.close());

  const rejects = (p: Promise<unknown>, code: string) =>
    assert.rejects(
      p,
      (err: unknown) => err instanceof RaymondError && err.code === code && err.file === WHERE,
    );

  it('resolves a goto target to its state file, and refuses one the workflow does not have', async () => {
    const out = await resolveDecision(
      { kind: 'goto', target: 'NEXT', input: 'x' },
      w.input(w.agent('START.sh')),
      w.deps,
      WHERE,
    );
    assert.deepEqual(out, { kind: 'goto', target: 'NEXT.sh', input: 'x' });
    await assert.rejects(
      resolveDecision(
        { kind: 'goto', target: 'NOPE' },
        w.input(w.agent('START.sh')),
        w.deps,
        WHERE,
      ),
      RaymondError,
    );
  });

  it('makes a reset\'s cd absolute, refuses one that is not a directory, and gives task="new" the next folder', async () => {
    const out = await resolveDecision(
      { kind: 'reset', target: 'NEXT', cd: 'sub', newTask: true },
      w.input(w.agent('START.sh')),
      w.deps,
      WHERE,
    );
    assert.equal(out.kind, 'reset');
    assert.equal(out.kind === 'reset' && out.cd, join(w.wf, 'sub'));
    assert.deepEqual(out.kind === 'reset' && out.taskFolder, {
      path: join(w.dir, '.raymond/tasks/wf-1/main.2'),
      number: 2,
    });
    await rejects(
      resolveDecision(
        { kind: 'reset', target: 'NEXT', cd: 'missing' },
        w.input(w.agent('START.sh')),
        w.deps,
        WHERE,
      ),
      'ERR_CD',
    );
  });

  it('leaves worktrees alone: a reset or fork that asks for one is not planned here, and no git or pool call is made', async () => {
    const reset = await resolveDecision(
      { kind: 'reset', target: 'NEXT', worktree: { name: 'wt' } },
      w.input(w.agent('START.sh')),
      w.deps,
      WHERE,
    );
    assert.equal(reset.kind === 'reset' && reset.created, undefined);
    const holder = w.agent('START.sh', {
      worktree: {
        name: 'wt',
        repo: '/r',
        branch: 'raymond/wf-1/main',
        base: 'abc',
        path: '/pool/1',
        mode: 'keep-ignored',
      },
    });
    const fork = await resolveDecision(
      {
        kind: 'fork',
        next: 'NEXT',
        join: true,
        workers: [{ target: 'W', attributes: {}, worktree: { name: 'x' } }],
      },
      w.input(holder),
      w.deps,
      WHERE,
    );
    assert.equal(fork.kind === 'fork' && fork.workers[0]!.created, undefined);
    assert.equal(
      fork.kind === 'fork' && fork.worktree,
      undefined,
      'a joining parent keeps its folder until the step settles it',
    );
    const result = await resolveDecision(
      { kind: 'result', payload: 'done' },
      w.input(holder),
      w.deps,
      WHERE,
    );
    assert.deepEqual(result, { kind: 'result', payload: 'done' });
    assert.deepEqual(w.pool.calls, []);
  });

  it('names forked workers from the fork count and gives each its task folder, or its parent\'s with task="inherit"', async () => {
    const out = await resolveDecision(
      {
        kind: 'fork',
        next: 'NEXT',
        workers: [
          { target: 'W', attributes: { item: '1' } },
          { target: 'W', attributes: {}, inheritTask: true, cd: 'sub' },
        ],
      },
      w.input(w.agent('START.sh'), 4),
      w.deps,
      WHERE,
    );
    assert.equal(out.kind, 'fork');
    if (out.kind !== 'fork') return;
    assert.equal(out.next, 'NEXT.sh');
    assert.deepEqual(
      out.workers.map((x) => [x.id, x.target, x.taskFolder]),
      [
        ['main_w5', 'W.md', { path: join(w.dir, '.raymond/tasks/wf-1/main_w5'), number: 1 }],
        ['main_w6', 'W.md', { path: join(w.dir, '.raymond/tasks/wf-1/main'), number: 0 }],
      ],
    );
    assert.equal(out.workers[1]!.cd, join(w.wf, 'sub'));
  });

  it('refuses a call past the deepest return stack', async () => {
    let stack: FrameStack = null;
    for (let i = 0; i < MAX_STACK_DEPTH; i++)
      stack = pushFrame(stack, { state: 'BACK.sh', session: null });
    await rejects(
      resolveDecision(
        { kind: 'call', target: 'NEXT', returnTo: 'BACK' },
        w.input(w.agent('START.sh', { stack })),
        w.deps,
        WHERE,
      ),
      'ERR_STACK_DEPTH',
    );
    const ok = await resolveDecision(
      { kind: 'function', target: 'NEXT', returnTo: 'BACK' },
      w.input(w.agent('START.sh')),
      w.deps,
      WHERE,
    );
    assert.deepEqual(ok, { kind: 'function', target: 'NEXT.sh', returnTo: 'BACK.sh' });
  });

  it("opens a cross-workflow callee and renders its input with the caller's run, id and task folder", async () => {
    const out = await resolveDecision(
      {
        kind: 'call',
        target: '../other',
        returnTo: 'BACK',
        workflow: { spec: '../other' },
        input: '{{workflow_id}} {{agent_id}}',
      },
      w.input(w.agent('START.sh')),
      w.deps,
      WHERE,
    );
    assert.equal(out.kind, 'call');
    if (out.kind !== 'call') return;
    assert.equal(out.target, 'START.sh');
    assert.equal(out.returnTo, 'BACK.sh');
    assert.deepEqual(out.workflow, {
      spec: '../other',
      scope: join(w.dir, 'other'),
      name: 'other',
    });
    assert.equal(out.input, 'wf-1 main');
  });

  it('gives an ask its id and times under --on-ask=pause, and refuses it under reject', async () => {
    const before = Date.now();
    const out = await resolveDecision(
      { kind: 'ask', next: 'NEXT', prompt: 'ok?', timeoutMs: 60_000, timeoutNext: 'BACK' },
      w.input(w.agent('START.sh')),
      w.deps,
      WHERE,
    );
    assert.equal(out.kind, 'ask');
    if (out.kind !== 'ask') return;
    assert.match(out.ask.id, /^ask_main_\d+$/);
    const created = Date.parse(out.ask.created_at);
    assert.ok(created >= before && created <= Date.now());
    assert.equal(Date.parse(out.ask.timeout_at!) - created, 60_000);
    assert.deepEqual(
      [out.next, out.ask.next, out.ask.timeout_next, out.timeoutNext],
      ['NEXT.sh', 'NEXT.sh', 'BACK.sh', 'BACK.sh'],
    );
    await rejects(
      resolveDecision(
        { kind: 'ask', next: 'NEXT', prompt: 'ok?' },
        w.input(w.agent('START.sh')),
        { ...w.deps, onAsk: 'reject' },
        WHERE,
      ),
      'ERR_ASK_REJECTED',
    );
  });
});
