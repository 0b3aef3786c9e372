import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { RaymondError, formatError } from '../../src/errors.js';
import { createWorktree, finishWorktree, pruneWorktree, summarizeWorktree } from '../../src/worktrees/git-worktrees.js';

const temps: string[] = [];
after(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'raymond-worktrees-'));
  temps.push(dir);
  return dir;
}

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** A fresh repository on `main` with one commit, realpath'd like git reports it. */
function makeRepo(): string {
  const dir = tempDir();
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'Raymond Test');
  git(dir, 'config', 'user.email', 'raymond@example.com');
  git(dir, 'config', 'commit.gpgsign', 'false');
  writeFileSync(join(dir, 'README.md'), 'hello\n');
  git(dir, 'add', 'README.md');
  git(dir, 'commit', '-q', '-m', 'first');
  return git(dir, 'rev-parse', '--show-toplevel');
}

function commitFile(dir: string, name: string, text: string): string {
  writeFileSync(join(dir, name), text);
  git(dir, 'add', name);
  git(dir, 'commit', '-q', '-m', `add ${name}`);
  return git(dir, 'rev-parse', 'HEAD');
}

function branches(repo: string): string {
  return git(repo, 'branch', '--list', '--format=%(refname:short)', 'raymond/*');
}

async function worktreeError(promise: Promise<unknown>, cwd: string): Promise<RaymondError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof RaymondError, `expected RaymondError, got ${String(err)}`);
    assert.equal(err.code, 'ERR_WORKTREE');
    assert.ok(formatError(err).startsWith(`${cwd}: `), formatError(err));
    assert.ok(!formatError(err).includes('\n'), `message should be one line: ${formatError(err)}`);
    return err;
  }
  assert.fail('expected a RaymondError');
}

describe('createWorktree', () => {
  it('creates branch and folder from HEAD', async () => {
    const repo = makeRepo();
    const head = git(repo, 'rev-parse', 'HEAD');
    const w = await createWorktree({ cwd: repo, workflowId: 'wf1', agentId: 'main_worker1' });
    assert.equal(w.repo, repo);
    assert.equal(w.branch, 'raymond/wf1/main_worker1');
    assert.equal(w.path, join(repo, '.raymond', 'worktrees', 'wf1', 'main_worker1'));
    assert.ok(isAbsolute(w.path));
    assert.equal(w.base, head);
    assert.equal(git(w.path, 'rev-parse', 'HEAD'), head);
    assert.equal(git(w.path, 'rev-parse', '--abbrev-ref', 'HEAD'), 'raymond/wf1/main_worker1');
    assert.ok(existsSync(join(w.path, 'README.md')));
  });

  it('finds the top level from a subfolder', async () => {
    const repo = makeRepo();
    const sub = join(repo, 'sub');
    mkdirSync(sub);
    const w = await createWorktree({ cwd: sub, workflowId: 'wf', agentId: 'a' });
    assert.equal(w.path, join(repo, '.raymond', 'worktrees', 'wf', 'a'));
  });

  it('creates from an explicit base: tag or sha, pinned to a full sha', async () => {
    const repo = makeRepo();
    const first = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'tag', 'v1');
    commitFile(repo, 'later.txt', 'later\n');

    const byTag = await createWorktree({ cwd: repo, workflowId: 'wf', agentId: 'tagged', base: 'v1' });
    assert.equal(byTag.base, first);
    assert.equal(git(byTag.path, 'rev-parse', 'HEAD'), first);
    assert.ok(!existsSync(join(byTag.path, 'later.txt')));

    const bySha = await createWorktree({ cwd: repo, workflowId: 'wf', agentId: 'short', base: first.slice(0, 8) });
    assert.equal(bySha.base, first);
    assert.equal(git(bySha.path, 'rev-parse', 'HEAD'), first);
  });

  it('serializes 8 concurrent creations', async () => {
    const repo = makeRepo();
    const ids = Array.from({ length: 8 }, (_, i) => `agent${i}`);
    const all = await Promise.all(ids.map((agentId) => createWorktree({ cwd: repo, workflowId: 'wf', agentId })));
    assert.deepEqual(all.map((w) => w.branch), ids.map((id) => `raymond/wf/${id}`));
    for (const w of all) assert.ok(existsSync(join(w.path, 'README.md')), w.path);
    assert.equal(branches(repo).split('\n').length, 8);
  });
});

describe('summarizeWorktree and finishWorktree', () => {
  it('removes folder and branch when nothing happened', async () => {
    const repo = makeRepo();
    const w = await createWorktree({ cwd: repo, workflowId: 'wf', agentId: 'idle' });
    assert.deepEqual(await summarizeWorktree(w), { branch: w.branch, path: w.path, commits: 0, diffstat: '', dirty: false });
    const s = await finishWorktree(w);
    assert.equal(s.removed, true);
    assert.equal(s.commits, 0);
    assert.ok(!existsSync(w.path));
    assert.equal(branches(repo), '');
    assert.ok(!git(repo, 'worktree', 'list').includes(w.path));
  });

  it('keeps a worktree with a commit', async () => {
    const repo = makeRepo();
    const w = await createWorktree({ cwd: repo, workflowId: 'wf', agentId: 'busy' });
    commitFile(w.path, 'new.txt', 'one line\n');
    const s = await finishWorktree(w);
    assert.deepEqual(s, { branch: w.branch, path: w.path, commits: 1, diffstat: '1 file changed, 1 insertion(+)', dirty: false, removed: false });
    assert.ok(existsSync(w.path));
    assert.equal(branches(repo), w.branch);
  });

  it('keeps a worktree with only an uncommitted change', async () => {
    const repo = makeRepo();
    const w = await createWorktree({ cwd: repo, workflowId: 'wf', agentId: 'dirty' });
    writeFileSync(join(w.path, 'untracked.txt'), 'draft\n');
    const s = await finishWorktree(w);
    assert.equal(s.removed, false);
    assert.equal(s.dirty, true);
    assert.equal(s.commits, 0);
    assert.equal(s.diffstat, '');
    assert.ok(existsSync(join(w.path, 'untracked.txt')));
  });

  it('compares against the pinned base even after the main branch moves', async () => {
    const repo = makeRepo();
    const w = await createWorktree({ cwd: repo, workflowId: 'wf', agentId: 'pinned' });
    commitFile(repo, 'main-only.txt', 'main\n');
    const s = await summarizeWorktree(w);
    assert.equal(s.commits, 0);
    assert.equal(s.diffstat, '');
  });
});

describe('pruneWorktree', () => {
  it('removes the folder, keeps the branch, and a second prune is a no-op', async () => {
    const repo = makeRepo();
    const w = await createWorktree({ cwd: repo, workflowId: 'wf', agentId: 'pruned' });
    writeFileSync(join(w.path, 'scratch.txt'), 'dirty on purpose\n');
    await pruneWorktree(w);
    assert.ok(!existsSync(w.path));
    assert.equal(branches(repo), w.branch);
    await pruneWorktree(w);
    assert.equal(branches(repo), w.branch);
    // The branch is free again, so its summary still works from the repository.
    const s = await summarizeWorktree(w);
    assert.equal(s.dirty, false);
  });

  it('copes with a folder deleted by hand', async () => {
    const repo = makeRepo();
    const w = await createWorktree({ cwd: repo, workflowId: 'wf', agentId: 'gone' });
    rmSync(w.path, { recursive: true, force: true });
    await pruneWorktree(w);
    assert.ok(!git(repo, 'worktree', 'list').includes(w.path));
    assert.equal(branches(repo), w.branch);
  });
});

describe('errors', () => {
  it('outside a git repository', async () => {
    const dir = tempDir();
    const err = await worktreeError(createWorktree({ cwd: dir, workflowId: 'wf', agentId: 'main_worker1' }), dir);
    assert.match(err.message, /not inside a git repository: worktree="main_worker1" needs one/);
  });

  it('bad base revision', async () => {
    const repo = makeRepo();
    const err = await worktreeError(createWorktree({ cwd: repo, workflowId: 'wf', agentId: 'main_worker1', base: 'no-such-rev' }), repo);
    assert.match(err.message, /cannot create worktree for main_worker1: .*no-such-rev/);
    assert.equal(branches(repo), '');
  });

  it('same agent twice takes its worktree back (a step re-run after a crash)', async () => {
    const repo = makeRepo();
    const first = await createWorktree({ cwd: repo, workflowId: 'wf', agentId: 'twice' });
    const again = await createWorktree({ cwd: repo, workflowId: 'wf', agentId: 'twice' });
    assert.deepEqual(again, first);
  });

  it('a branch of that name without its worktree folder is refused', async () => {
    const repo = makeRepo();
    execFileSync('git', ['-C', repo, 'branch', 'raymond/wf/taken']);
    const err = await worktreeError(createWorktree({ cwd: repo, workflowId: 'wf', agentId: 'taken' }), repo);
    assert.match(err.message, /cannot create worktree for taken: .*already exists/);
  });

  it('a failure does not block the queue', async () => {
    const repo = makeRepo();
    const results = await Promise.allSettled([
      createWorktree({ cwd: repo, workflowId: 'wf', agentId: 'bad', base: 'nope' }),
      createWorktree({ cwd: repo, workflowId: 'wf', agentId: 'good' }),
    ]);
    assert.equal(results[0]?.status, 'rejected');
    assert.equal(results[1]?.status, 'fulfilled');
  });
});
