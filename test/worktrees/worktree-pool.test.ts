import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { WorktreeMode, WorktreeRef } from '../../machines/types.js';
import { pinBase, worktreesDir } from '../../src/worktrees/git-worktrees.js';
import { createWorktreePool } from '../../src/worktrees/worktree-pool.js';
import { readFolder } from '../../src/worktrees/worktree-folder.js';
import { commitFile, git, makeRepo, raymondBranches, removeTemps } from '../helpers/git-repo.js';

after(removeTemps);

const files = {
  'README.md': 'top\n',
  'pkg/a/a.txt': 'a\n',
  'pkg/b/b.txt': 'b\n',
  'pkg/c/c.txt': 'c\n',
};

async function ref(
  repo: string,
  agentId: string,
  mode: WorktreeMode = 'keep-ignored',
  extra: Partial<WorktreeRef> = {},
): Promise<WorktreeRef> {
  const { base } = await pinBase(repo, undefined, 'w');
  return { name: 'w', repo, branch: `raymond/wf/${agentId}`, base, mode, ...extra };
}

const folders = (repo: string) => readdirSync(worktreesDir(repo, 'wf')).sort();

describe('worktree pool', () => {
  it('checks out each agent on its own branch, reuses a freed folder, and removes free folders at the end', async () => {
    const repo = makeRepo(files);
    const pool = createWorktreePool('wf');
    const a = await ref(repo, 'a');
    const pathA = await pool.acquire(a, 'a');
    assert.equal(git(pathA, 'rev-parse', '--abbrev-ref', 'HEAD'), 'raymond/wf/a');
    commitFile(pathA, 'pkg/a/a.txt', 'changed by a\n');
    mkdirSync(join(pathA, 'node_modules'));
    writeFileSync(join(pathA, 'node_modules', 'warm.js'), 'kept\n');
    writeFileSync(join(pathA, 'scratch.txt'), 'untracked, committed by the save\n');
    const doneA = await pool.finish({ ...a, path: pathA }, 'a');
    assert.equal(doneA.commits, 2);
    assert.equal(doneA.removed, false);
    assert.match(doneA.saved!, /^[0-9a-f]{40}$/);
    assert.equal(git(repo, 'show', `raymond/wf/a:scratch.txt`), 'untracked, committed by the save');

    const b = await ref(repo, 'b');
    const pathB = await pool.acquire(b, 'b');
    assert.equal(pathB, pathA, 'the freed folder is reused');
    assert.equal(git(pathB, 'rev-parse', '--abbrev-ref', 'HEAD'), 'raymond/wf/b');
    assert.equal(
      readFileSync(join(pathB, 'pkg/a/a.txt'), 'utf8'),
      'a\n',
      "b starts from the base, not from a's work",
    );
    assert.equal(existsSync(join(pathB, 'scratch.txt')), false);
    assert.equal(
      readFileSync(join(pathB, 'node_modules', 'warm.js'), 'utf8'),
      'kept\n',
      'ignored files stay warm with keep-ignored',
    );
    assert.equal(git(pathB, 'status', '--porcelain'), '');

    const doneB = await pool.finish({ ...b, path: pathB }, 'b');
    assert.equal(doneB.removed, true, 'a branch without commits is deleted');
    assert.deepEqual(raymondBranches(repo), ['raymond/wf/a']);
    assert.deepEqual(pool.stats(), { created: 1, reused: 1, peakAlive: 1 });
    await pool.close();
    assert.equal(existsSync(pathA), false);
    assert.equal(
      git(repo, 'worktree', 'list', '--porcelain')
        .split('\n')
        .filter((l) => l.startsWith('worktree ')).length,
      1,
    );
  });

  it('clean mode removes ignored files between agents', async () => {
    const repo = makeRepo(files);
    const pool = createWorktreePool('wf');
    const a = await ref(repo, 'a', 'clean');
    const path = await pool.acquire(a, 'a');
    mkdirSync(join(path, 'node_modules'));
    writeFileSync(join(path, 'node_modules', 'stale.js'), 'x\n');
    await pool.finish({ ...a, path }, 'a');
    assert.equal(await pool.acquire(await ref(repo, 'b', 'clean'), 'b'), path);
    assert.equal(existsSync(join(path, 'node_modules')), false);
  });

  it('gives concurrent agents their own folders, and a sparse agent only its cone', async () => {
    const repo = makeRepo(files);
    const pool = createWorktreePool('wf');
    const refs = await Promise.all(
      ['a', 'b', 'c', 'd'].map((id) =>
        ref(repo, id, 'keep-ignored', id === 'd' ? { sparse: ['pkg/b'] } : {}),
      ),
    );
    const paths = await Promise.all(refs.map((w) => pool.acquire(w, w.branch.split('/').pop()!)));
    assert.equal(new Set(paths).size, 4);
    const sparse = paths[3]!;
    assert.deepEqual(readdirSync(join(sparse, 'pkg')).sort(), ['b']);
    assert.ok(existsSync(join(sparse, 'README.md')), 'top-level files come with a cone');
    assert.equal(pool.stats().peakAlive, 4);
    // The sparse folder, reused by an agent that wants everything, gets everything back.
    await pool.finish({ ...refs[3]!, path: sparse }, 'd');
    const e = await ref(repo, 'e');
    assert.equal(await pool.acquire(e, 'e'), sparse);
    assert.deepEqual(readdirSync(join(sparse, 'pkg')).sort(), ['a', 'b', 'c']);
  });

  it('starts a branch at its pinned base, even after HEAD moved', async () => {
    const repo = makeRepo(files);
    const pool = createWorktreePool('wf');
    const a = await ref(repo, 'a');
    commitFile(repo, 'later.txt', 'after the fork\n');
    const path = await pool.acquire(a, 'a');
    assert.equal(git(path, 'rev-parse', 'HEAD'), a.base);
    assert.equal(existsSync(join(path, 'later.txt')), false);
  });

  it('a new pool (a resumed run) takes back held folders as they are, and redoes a switch that was cut short', async () => {
    const repo = makeRepo(files);
    const first = createWorktreePool('wf');
    const a = await ref(repo, 'a');
    const b = await ref(repo, 'b');
    const pathA = await first.acquire(a, 'a');
    const pathB = await first.acquire(b, 'b');
    writeFileSync(join(pathA, 'pkg/a/a.txt'), 'uncommitted work of a\n');
    // b's switch "was killed": the marker says so, a stale index lock is left, files are half there.
    const gitDirB = readFolder(pathB)!.gitDir;
    writeFileSync(join(gitDirB, 'raymond-switch'), 'raymond/wf/b\n');
    writeFileSync(join(gitDirB, 'index.lock'), '');
    writeFileSync(join(pathB, 'pkg/b/b.txt'), 'half-written\n');

    // a's step "was killed" in `git commit`: its index and branch locks are left.
    const gitDirA = readFolder(pathA)!.gitDir;
    writeFileSync(join(gitDirA, 'index.lock'), '');
    writeFileSync(join(repo, '.git/refs/heads/raymond/wf/a.lock'), '');

    const resumed = createWorktreePool('wf');
    assert.equal(await resumed.acquire(a, 'a'), pathA);
    assert.equal(existsSync(join(gitDirA, 'index.lock')), false, "the killed step's index lock");
    assert.equal(existsSync(join(repo, '.git/refs/heads/raymond/wf/a.lock')), false);
    git(pathA, 'commit', '-qam', 'a commits again');
    assert.equal(
      readFileSync(join(pathA, 'pkg/a/a.txt'), 'utf8'),
      'uncommitted work of a\n',
      "a held folder's work is untouched",
    );
    const againB = await resumed.acquire(b, 'b');
    assert.equal(againB, pathB);
    assert.equal(
      readFileSync(join(pathB, 'pkg/b/b.txt'), 'utf8'),
      'b\n',
      'the cut-short switch was redone',
    );
    assert.equal(readFolder(pathB)!.switching, null);
    assert.equal(existsSync(join(gitDirB, 'index.lock')), false);
    assert.deepEqual(folders(repo), ['pool-1', 'pool-2']);
    // A third agent gets a new folder: both found are held.
    assert.equal(
      await resumed.acquire(await ref(repo, 'c'), 'c'),
      join(worktreesDir(repo, 'wf'), 'pool-3'),
    );
  });

  it("a queue worker's pool (it holds no run lock) leaves the git locks it finds to their owner", async () => {
    const repo = makeRepo(files);
    const a = await ref(repo, 'a');
    const pathA = await createWorktreePool('wf').acquire(a, 'a');
    const lock = join(readFolder(pathA)!.gitDir, 'index.lock');
    writeFileSync(lock, '');
    assert.equal(await createWorktreePool('wf', { ownsFolders: false }).acquire(a, 'a'), pathA);
    assert.equal(existsSync(lock), true);
  });

  it('gets a new folder when the held one was deleted by hand, with the branch and its commits', async () => {
    const repo = makeRepo(files);
    const pool = createWorktreePool('wf');
    const a = await ref(repo, 'a');
    const path = await pool.acquire(a, 'a');
    const sha = commitFile(path, 'pkg/a/a.txt', 'work\n');
    git(repo, 'worktree', 'remove', '--force', path);
    const again = await createWorktreePool('wf').acquire({ ...a, path }, 'a');
    assert.equal(git(again, 'rev-parse', 'HEAD'), sha);
  });

  it('off: one folder per agent, named after it, kept with its work, removed with its branch when untouched', async () => {
    const repo = makeRepo(files);
    const pool = createWorktreePool('wf');
    const a = await ref(repo, 'main_w1', 'off');
    const b = await ref(repo, 'main_w2', 'off');
    const pathA = await pool.acquire(a, 'main_w1');
    const pathB = await pool.acquire(b, 'main_w2');
    assert.equal(pathA, join(worktreesDir(repo, 'wf'), 'main_w1'));
    writeFileSync(join(pathA, 'left.txt'), 'left\n');
    const doneA = await pool.finish({ ...a, path: pathA }, 'main_w1');
    assert.deepEqual([doneA.dirty, doneA.removed, doneA.saved], [true, false, undefined]);
    assert.equal(readFileSync(join(pathA, 'left.txt'), 'utf8'), 'left\n');
    assert.equal((await pool.finish({ ...b, path: pathB }, 'main_w2')).removed, true);
    assert.equal(existsSync(pathB), false);
    await pool.close();
    assert.ok(existsSync(pathA), 'a kept folder outlives the run');
  });
});
