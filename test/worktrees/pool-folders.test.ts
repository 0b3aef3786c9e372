import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { worktreesDir } from '../../src/worktrees/git-worktrees.js';
import { scanFolders } from '../../src/worktrees/pool-folders.js';
import { git, makeRepo, removeTemps } from '../helpers/git-repo.js';

after(removeTemps);

/** A folder's private git folder, as its `.git` file names it. */
const gitDirOf = (folder: string) =>
  readFileSync(join(folder, '.git'), 'utf8')
    .replace(/^gitdir:\s*/, '')
    .trim();

describe('scanFolders (real git): what a killed run left in its pool folders', () => {
  it('a folder killed between its checkout and the end of its switch lets go of the branch', async () => {
    const repo = makeRepo();
    const dir = worktreesDir(repo, 'killed');
    const [one, two] = [join(dir, 'pool-1'), join(dir, 'pool-2')];
    git(repo, 'branch', 'raymond/killed/main_w1');
    git(repo, 'branch', 'raymond/killed/main_w2');
    // Each folder switched to the other's agent's branch and was killed before the marker went:
    // a state git allows, in which neither agent can check its branch out in the free folder.
    git(repo, 'worktree', 'add', '-q', one, 'raymond/killed/main_w2');
    git(repo, 'worktree', 'add', '-q', two, 'raymond/killed/main_w1');
    writeFileSync(join(gitDirOf(one), 'raymond-switch'), 'raymond/killed/main_w2\n');
    writeFileSync(join(gitDirOf(two), 'raymond-switch'), 'raymond/killed/main_w1\n');
    assert.throws(
      () => git(one, 'checkout', '--quiet', '--force', 'raymond/killed/main_w1'),
      /already (checked out|used by worktree)/,
      'the race as it was',
    );

    const folders = await scanFolders(repo, 'killed', true);
    assert.deepEqual(folders.free.map((f) => f.path).sort(), [one, two]);
    assert.equal(folders.held.size, 0);
    // Any agent may now take either folder.
    git(one, 'checkout', '--quiet', '--force', 'raymond/killed/main_w1');
    git(two, 'checkout', '--quiet', '--force', 'raymond/killed/main_w2');
    assert.equal(git(one, 'rev-parse', '--abbrev-ref', 'HEAD'), 'raymond/killed/main_w1');
  });

  it('a folder whose switch ended is held by its branch, untouched', async () => {
    const repo = makeRepo();
    const folder = join(worktreesDir(repo, 'done'), 'pool-1');
    git(repo, 'worktree', 'add', '-q', '-b', 'raymond/done/main_w1', folder);
    const folders = await scanFolders(repo, 'done', true);
    assert.equal(folders.held.get('raymond/done/main_w1')?.path, folder);
    assert.equal(git(folder, 'rev-parse', '--abbrev-ref', 'HEAD'), 'raymond/done/main_w1');
  });
});
