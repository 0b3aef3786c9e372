import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pushFrame } from '../../machines/frame-stack.js';
import type { ResolvedDecision, WorktreeRef } from '../../machines/types.js';
import { RaymondError } from '../../src/errors.js';
import { settleWorktrees, takeWorktree } from '../../src/runtime/step-worktree.js';
import { git, makeRepo, removeTemps } from '../helpers/git-repo.js';
import { stepWorld, type StepWorld } from '../helpers/step-deps.js';

/** Tests build resolved decisions by hand: resolving is resolve-decision.test.ts's subject. */
const resolved = (d: object) => d as ResolvedDecision;

const held = (path?: string): WorktreeRef => ({
  name: 'wt',
  repo: '/r',
  branch: 'raymond/wf-1/main',
  base: 'abc',
  mode: 'keep-ignored',
  ...(path ? { path } : {}),
});

describe('takeWorktree', () => {
  let w: StepWorld;
  before(async () => (w = await stepWorld({ 'START.sh': '#!/bin/sh\n' })));
  after(() => w.close());

  it('runs an agent without a live worktree as it is, asking the pool nothing', async () => {
    const input = w.input(w.agent('START.sh', { worktree: { ...held(), removed: true } }));
    assert.deepEqual(await takeWorktree(w.deps, input), { step: input });
    assert.deepEqual(w.pool.calls, []);
  });

  it("gives an agent on its first run its folder, keeping its directory's place inside the worktree", async () => {
    w.pool.folder = '/pool/7';
    const first = await takeWorktree(w.deps, w.input(w.agent('START.sh', { worktree: held() })));
    assert.deepEqual(first.acquired, { cwd: '/pool/7', worktree: { ...held(), path: '/pool/7' } });
    assert.equal(first.step.record.cwd, '/pool/7');
    const moved = await takeWorktree(
      w.deps,
      w.input(w.agent('START.sh', { worktree: held('/pool/1'), cwd: '/pool/1/src/lib' })),
    );
    assert.equal(moved.acquired?.cwd, '/pool/7/src/lib');
    w.pool.folder = '/pool/1';
    const same = await takeWorktree(
      w.deps,
      w.input(w.agent('START.sh', { worktree: held('/pool/1'), cwd: '/pool/1' })),
    );
    assert.equal(same.acquired, undefined, 'a folder it already holds is no news');
    assert.deepEqual(w.pool.calls, ['acquire main', 'acquire main', 'acquire main']);
  });
});

describe('settleWorktrees', () => {
  let w: StepWorld;
  let repo: string;
  before(async () => {
    w = await stepWorld({ 'START.sh': '#!/bin/sh\n' });
    repo = makeRepo();
  });
  after(async () => {
    await w.close();
    removeTemps();
  });

  it('plans the worktree a reset asks for: the branch named after the run and agent, pinned at HEAD', async () => {
    const out = await settleWorktrees(
      w.deps,
      w.input(w.agent('START.sh', { cwd: repo })),
      resolved({ kind: 'reset', target: 'START.sh', worktree: { name: 'wt', sparse: ['src'] } }),
    );
    assert.equal(out.kind, 'reset');
    assert.deepEqual(out.kind === 'reset' && out.created, {
      name: 'wt',
      repo,
      branch: 'raymond/wf-1/main',
      base: git(repo, 'rev-parse', 'HEAD'),
      from: git(repo, 'rev-parse', 'HEAD'),
      mode: 'keep-ignored',
      sparse: ['src'],
    });
  });

  it('keeps the worktree of an agent that has one through a reset, and refuses a base that is not a commit', async () => {
    const decision = resolved({ kind: 'reset', target: 'START.sh', worktree: { name: 'wt' } });
    assert.equal(
      await settleWorktrees(
        w.deps,
        w.input(w.agent('START.sh', { cwd: repo, worktree: held() })),
        decision,
      ),
      decision,
    );
    const bad = resolved({
      kind: 'reset',
      target: 'START.sh',
      worktree: { name: 'wt', base: 'no-such-rev' },
    });
    await assert.rejects(
      settleWorktrees(w.deps, w.input(w.agent('START.sh', { cwd: repo })), bad),
      (err: unknown) => err instanceof RaymondError && err.code === 'ERR_WORKTREE',
    );
  });

  it("plans a worktree for each worker that asks, and gives a joining parent's folder back to the pool", async () => {
    const fork = resolved({
      kind: 'fork',
      next: 'START.sh',
      join: true,
      workers: [
        { id: 'main_a1', target: 'START.sh', attributes: {}, worktree: { name: 'a' } },
        { id: 'main_b2', target: 'START.sh', attributes: {} },
      ],
    });
    const out = await settleWorktrees(
      w.deps,
      w.input(w.agent('START.sh', { cwd: repo, worktree: held('/pool/1') })),
      fork,
    );
    assert.equal(out.kind, 'fork');
    if (out.kind !== 'fork') return;
    assert.equal(out.workers[0]!.created?.branch, 'raymond/wf-1/main_a1');
    assert.equal(out.workers[1]!.created, undefined);
    assert.deepEqual(out.worktree, { ...held('/pool/1'), saved: 'abc123' });
    assert.deepEqual(w.pool.calls, ['suspend main']);
  });

  it('settles the worktree of an agent that ends, not of a callee that returns nor of one without a worktree', async () => {
    w.pool.calls.length = 0;
    const result = resolved({ kind: 'result', payload: 'done' });
    const ended = await settleWorktrees(
      w.deps,
      w.input(w.agent('START.sh', { worktree: held('/pool/1') })),
      result,
    );
    assert.deepEqual(ended, {
      kind: 'result',
      payload: 'done',
      worktree: { ...held('/pool/1'), commits: 1, removed: false },
    });
    const callee = w.agent('START.sh', {
      worktree: held('/pool/1'),
      stack: pushFrame(null, { state: 'START.sh', session: null }),
    });
    assert.equal(await settleWorktrees(w.deps, w.input(callee), result), result);
    assert.equal(await settleWorktrees(w.deps, w.input(w.agent('START.sh')), result), result);
    assert.equal(
      await settleWorktrees(
        w.deps,
        w.input(w.agent('START.sh', { worktree: { ...held(), removed: true } })),
        result,
      ),
      result,
    );
    assert.deepEqual(w.pool.calls, ['finish main']);
  });

  it('leaves a goto as it is', async () => {
    const goto = resolved({ kind: 'goto', target: 'START.sh' });
    assert.equal(
      await settleWorktrees(
        w.deps,
        w.input(w.agent('START.sh', { worktree: held('/pool/1') })),
        goto,
      ),
      goto,
    );
  });
});
