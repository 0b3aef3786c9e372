import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { finishFix, prepareFixFolder } from '../../src/merge/fix-folder.js';
import { commitsBetween, detachedFolder, mergeInto } from '../../src/merge/merge-git.js';
import { commitFile, git, makeRepo, removeTemps, tempDir } from '../helpers/git-repo.js';

after(removeTemps);

/** A repository with `into` and `agent` branching from main: the agent commits `b.txt` then `a.txt`, `into` commits `a.txt` too when they conflict, else `c.txt`. */
function twoBranches(conflict: boolean): { repo: string; into: string; agent: string } {
  const repo = makeRepo({ 'a.txt': 'base\n' });
  git(repo, 'switch', '-q', '-c', 'agent');
  commitFile(repo, 'b.txt', 'agent file\n');
  const agent = commitFile(repo, 'a.txt', 'agent edit\n');
  git(repo, 'switch', '-q', '-c', 'into', 'main');
  const into = conflict
    ? commitFile(repo, 'a.txt', 'into edit\n')
    : commitFile(repo, 'c.txt', 'into file\n');
  git(repo, 'switch', '-q', 'main');
  return { repo, into, agent };
}

describe('fix folders (real git)', () => {
  it('rebases the branch onto BRANCH when git can', async () => {
    const { repo, into, agent } = twoBranches(false);
    const folder = join(tempDir(), 'fix');
    const fix = await prepareFixFolder(repo, folder, 'agent-fix', agent, into, 'into', {});
    assert.equal(fix.kind, 'rebased');
    assert.equal(git(folder, 'rev-parse', '--abbrev-ref', 'HEAD'), 'agent-fix');
    assert.equal(git(folder, 'rev-parse', 'HEAD~2'), into);
    assert.equal(git(repo, 'rev-parse', 'agent'), agent, "the agent's branch stays as it was");
  });

  it('on a conflict, aborts the rebase and merges BRANCH in, leaving the markers; a fix left uncommitted is committed for the agent', async () => {
    const { repo, into, agent } = twoBranches(true);
    const folder = join(tempDir(), 'fix');
    const fix = await prepareFixFolder(repo, folder, 'agent-fix', agent, into, 'into', {});
    assert.equal(fix.kind, 'merging');
    assert.deepEqual(fix.kind === 'merging' && fix.files, ['a.txt']);
    assert.match(
      readFileSync(join(folder, 'a.txt'), 'utf8'),
      /^<<<<<<< HEAD\nagent edit\n=======\ninto edit\n>>>>>>> /,
    );
    assert.equal(
      git(folder, 'rev-parse', 'HEAD'),
      agent,
      'no rebase: the commits are the agent’s own',
    );
    // A turn without a shell: it edits the file and cannot commit.
    writeFileSync(join(folder, 'a.txt'), 'both edits\n');
    const done = await finishFix(folder, into, 'main_w1', {});
    assert.ok(done.ok && done.committedForAgent, JSON.stringify(done));
    assert.equal(git(folder, 'show', 'HEAD:a.txt'), 'both edits');
    assert.equal(git(folder, 'rev-parse', 'HEAD^2'), into, 'the merge was concluded');
    assert.equal(git(folder, 'log', '-1', '--format=%s'), 'Merge into into agent-fix');
    assert.equal(
      (await commitsBetween(folder, fix.head, done.ok ? done.head : '')).length,
      1,
      'one fix commit, not what BRANCH brought',
    );
  });

  it('refuses a fix that leaves conflict markers', async () => {
    const { repo, into, agent } = twoBranches(true);
    const folder = join(tempDir(), 'fix');
    await prepareFixFolder(repo, folder, 'agent-fix', agent, into, 'into', {});
    const done = await finishFix(folder, into, 'main_w1', {});
    assert.deepEqual(done, { ok: false, reason: 'the resolution left conflict markers in a.txt' });
  });
});

describe('the merge folder (real git)', () => {
  it('keeps nothing of a merge that conflicts, and a folder left mid-merge is reset', async () => {
    const { repo, into, agent } = twoBranches(true);
    const folder = join(tempDir(), 'merge');
    await detachedFolder(repo, folder, into);
    const m = await mergeInto(folder, agent, 'merge it', {});
    assert.deepEqual(m.ok ? [] : m.conflicts, ['a.txt']);
    assert.equal(git(folder, 'rev-parse', 'HEAD'), into);
    assert.equal(git(folder, 'status', '--porcelain'), '');
    // As a killed merge leaves it: mid-merge, with git's index lock.
    assert.throws(() => git(folder, 'merge', '--no-edit', agent));
    const gitDir = git(folder, 'rev-parse', '--absolute-git-dir');
    writeFileSync(join(gitDir, 'index.lock'), '');
    await detachedFolder(repo, folder, into);
    assert.equal(existsSync(join(gitDir, 'MERGE_HEAD')), false);
    assert.equal(git(folder, 'status', '--porcelain'), '');
    assert.equal(readFileSync(join(folder, 'a.txt'), 'utf8'), 'into edit\n');
  });
});
