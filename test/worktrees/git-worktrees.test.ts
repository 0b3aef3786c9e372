import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { RaymondError, formatError } from '../../src/errors.js';
import {
  checkedOut,
  ensureBranch,
  pinBase,
  removeFolder,
  summarizeWorktree,
} from '../../src/worktrees/git-worktrees.js';
import {
  commitFile,
  git,
  makeRepo,
  raymondBranches,
  removeTemps,
  tempDir,
} from '../helpers/git-repo.js';

after(removeTemps);

async function worktreeError(promise: Promise<unknown>, where: string): Promise<RaymondError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof RaymondError, `expected RaymondError, got ${String(err)}`);
    assert.equal(err.code, 'ERR_WORKTREE');
    assert.ok(formatError(err).startsWith(`${where}: `), formatError(err));
    assert.ok(!formatError(err).includes('\n'), `message should be one line: ${formatError(err)}`);
    return err;
  }
  assert.fail('expected a RaymondError');
}

describe('pinBase', () => {
  it('finds the top level from a subfolder and pins HEAD, a tag or a short sha to a full sha', async () => {
    const repo = makeRepo();
    const first = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'tag', 'v1');
    commitFile(repo, 'later.txt', 'later\n');
    mkdirSync(join(repo, 'sub'));
    assert.deepEqual(await pinBase(join(repo, 'sub'), undefined, 'w'), {
      repo,
      base: git(repo, 'rev-parse', 'HEAD'),
    });
    assert.equal((await pinBase(repo, 'v1', 'w')).base, first);
    assert.equal((await pinBase(repo, first.slice(0, 8), 'w')).base, first);
  });

  it('outside a git repository, or with a base git does not know, says so in one line', async () => {
    const dir = tempDir();
    assert.match(
      (await worktreeError(pinBase(dir, undefined, 'x'), dir)).message,
      /not inside a git repository: worktree="x" needs one/,
    );
    const repo = makeRepo();
    assert.match(
      (await worktreeError(pinBase(repo, 'no-such-rev', 'x'), repo)).message,
      /cannot create worktree "x": base "no-such-rev" is not a commit/,
    );
  });
});

describe('branches, summaries and folders', () => {
  it('ensureBranch makes the branch once, keeps one that grew from the base, refuses a foreign one', async () => {
    const repo = makeRepo();
    const base = git(repo, 'rev-parse', 'HEAD');
    const w = { name: 'w', repo, branch: 'raymond/wf/a', base };
    await Promise.all([ensureBranch(w), ensureBranch(w)]);
    assert.deepEqual(raymondBranches(repo), ['raymond/wf/a']);
    git(repo, 'checkout', '-q', '--orphan', 'other');
    git(repo, 'rm', '-rq', '--cached', '.');
    commitFile(repo, 'x.txt', 'x\n');
    git(repo, 'branch', 'raymond/wf/foreign');
    git(repo, 'checkout', '-q', '-f', 'main');
    const err = await worktreeError(ensureBranch({ ...w, branch: 'raymond/wf/foreign' }), repo);
    assert.match(err.message, /branch raymond\/wf\/foreign already exists and does not start from/);
  });

  it('summarizes commits, diffstat and uncommitted work; lists where branches are checked out; removes a folder', async () => {
    const repo = makeRepo();
    const base = git(repo, 'rev-parse', 'HEAD');
    const path = join(repo, '.raymond', 'worktrees', 'wf', 'a');
    git(repo, 'worktree', 'add', '-q', '-b', 'raymond/wf/a', path, base);
    const w = { name: 'w', repo, branch: 'raymond/wf/a', base, path };
    assert.deepEqual(await summarizeWorktree(w, path), { commits: 0, diffstat: '', dirty: false });
    commitFile(path, 'one.txt', 'one\n');
    writeFileSync(join(path, 'loose.txt'), 'loose\n');
    assert.deepEqual(await summarizeWorktree(w, path), {
      commits: 1,
      diffstat: '1 file changed, 1 insertion(+)',
      dirty: true,
    });
    assert.equal((await checkedOut(repo)).get('raymond/wf/a'), path);
    await removeFolder(repo, path);
    assert.equal((await checkedOut(repo)).has('raymond/wf/a'), false);
    assert.deepEqual(
      await summarizeWorktree(w, path),
      { commits: 1, diffstat: '1 file changed, 1 insertion(+)', dirty: false },
      'the branch keeps the commit',
    );
  });
});
