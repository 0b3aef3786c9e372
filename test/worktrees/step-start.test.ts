import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { WorktreeRef } from '../../machines/types.js';
import { createWorktreeStarts, recordStart, restartFrom } from '../../src/worktrees/step-start.js';
import { commitFile, git, makeRepo, removeTemps, tempDir } from '../helpers/git-repo.js';

after(removeTemps);

/** An agent's branch checked out in a folder of its own, as the pool makes it. */
function agentFolder(agentId = 'main_w1') {
  const repo = makeRepo({ 'compare.js': 'old\n' });
  const base = git(repo, 'rev-parse', 'HEAD');
  const path = join(tempDir('raymond-wt-'), agentId);
  const branch = `raymond/run/${agentId}`;
  git(repo, 'worktree', 'add', '-q', '-b', branch, path, base);
  const w: WorktreeRef & { path: string } = { name: 'w', repo, branch, base, path, from: base };
  return { repo, base, path, w };
}

const log = (dir: string, ref = 'HEAD') => git(dir, 'log', '--format=%s', ref).split('\n');

describe('step starts in a worktree', () => {
  it('a killed step that committed runs again from where it started; its commit is kept on an interrupted branch', async () => {
    const { repo, base, path, w } = agentFolder();
    const killed = commitFile(path, 'compare.js', 'new\n');
    writeFileSync(join(path, 'half.txt'), 'half-done\n');
    const r = await restartFrom(w, 'main_w1');
    assert.equal(r?.branch, 'raymond/run/main_w1-interrupted-1');
    assert.equal(git(path, 'rev-parse', 'HEAD'), base, 'the branch is back at its start');
    assert.equal(git(path, 'status', '--porcelain'), '', 'and the folder is clean');
    assert.equal(readFileSync(join(path, 'compare.js'), 'utf8'), 'old\n');
    assert.ok(!existsSync(join(path, 'half.txt')));
    assert.equal(
      git(repo, 'rev-parse', `${r.saved}^`),
      killed,
      'the killed commit, then what it left',
    );
    assert.equal(git(repo, 'show', `${r.branch}:half.txt`), 'half-done');
    assert.equal(await restartFrom(w, 'main_w1'), undefined, 'once back, nothing to do');
    commitFile(path, 'again.txt', 'x\n');
    const second = await restartFrom(w, 'main_w1');
    assert.equal(
      second?.branch,
      'raymond/run/main_w1-interrupted-2',
      'a second interruption, a second branch',
    );
  });

  it('uncommitted work the last step left comes back with the restart; work of the killed attempt does not', async () => {
    const { path, w } = agentFolder();
    writeFileSync(join(path, 'compare.js'), 'edited by step 1\n');
    mkdirSync(join(path, 'src'));
    writeFileSync(join(path, 'src', 'new.js'), 'untracked by step 1\n');
    const start = await recordStart(w, 'main_w1');
    assert.ok(start.from_tree, 'uncommitted work is held in a commit');
    assert.equal(git(w.repo, 'rev-parse', 'refs/raymond/run/main_w1'), start.from_tree);
    const at = { ...w, ...start };
    assert.equal(
      await restartFrom(at, 'main_w1'),
      undefined,
      'a folder where the step ended is left as it is',
    );
    // Step 2 starts, commits everything and is killed.
    git(path, 'add', '-A');
    git(path, 'commit', '-q', '-m', 'step 2');
    writeFileSync(join(path, 'compare.js'), 'edited by step 2\n');
    const r = await restartFrom(at, 'main_w1');
    assert.ok(r);
    assert.deepEqual(log(path), ['first'], 'no commit of step 2');
    assert.equal(readFileSync(join(path, 'compare.js'), 'utf8'), 'edited by step 1\n');
    assert.equal(readFileSync(join(path, 'src', 'new.js'), 'utf8'), 'untracked by step 1\n');
    const clean = { ...at, ...(await recordStart(at, 'main_w1')) };
    assert.equal(
      git(path, 'rev-parse', `${clean.from_tree}^{tree}`),
      git(path, 'rev-parse', `${start.from_tree}^{tree}`),
      'the same tree as before the killed step',
    );
  });

  it('a clean folder records its head only, and lets go of a held tree', async () => {
    const { path, w } = agentFolder();
    writeFileSync(join(path, 'x.txt'), 'x\n');
    const dirty = { ...w, ...(await recordStart(w, 'main_w1')) };
    git(path, 'add', '-A');
    git(path, 'commit', '-q', '-m', 'x');
    const clean = await recordStart(dirty, 'main_w1');
    assert.deepEqual(clean, { from: git(path, 'rev-parse', 'HEAD') });
    assert.equal(git(w.repo, 'for-each-ref', 'refs/raymond/'), '', 'the held tree is let go');
  });

  it('an agent with no recorded start (an older state file) is left alone', async () => {
    const { path, w } = agentFolder();
    commitFile(path, 'y.txt', 'y\n');
    const { from: _from, ...old } = w;
    assert.equal(await restartFrom(old, 'main_w1'), undefined);
    assert.deepEqual(log(path), ['add y.txt', 'first']);
  });

  it('a new run looks for nothing; a resumed one looks once per agent; an agent that ends lets go of its held tree', async () => {
    const { path, w } = agentFolder();
    commitFile(path, 'z.txt', 'z\n');
    assert.equal(await createWorktreeStarts(false).restart(w, 'main_w1'), undefined);
    const resumed = createWorktreeStarts(true);
    assert.ok(await resumed.restart(w, 'main_w1'));
    commitFile(path, 'z2.txt', 'z\n');
    assert.equal(await resumed.restart(w, 'main_w1'), undefined, 'once per process');
    writeFileSync(join(path, 'u.txt'), 'u\n');
    const held = { ...w, ...(await resumed.record(w, 'main_w1', 'stays')) };
    assert.ok(held.from_tree);
    assert.equal(await resumed.record(held, 'main_w1', 'ends'), undefined);
    assert.equal(git(w.repo, 'for-each-ref', 'refs/raymond/'), '');
  });
});
