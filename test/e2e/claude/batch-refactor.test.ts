import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { ROOT, raymond, summary } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

const git = async (cwd: string, ...args: string[]) => (await execa('git', args, { cwd })).stdout.trim();

/** A small repository with three files to refactor (foo -> bar) and a check script. */
async function makeRepo(name = 'repo'): Promise<string> {
  const repo = join(box.dir, name);
  mkdirSync(repo);
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'config', 'user.email', 'test@example.com');
  await git(repo, 'config', 'user.name', 'Test');
  writeFileSync(join(repo, 'refactor.md'), 'Rename foo to bar.\n');
  writeFileSync(join(repo, 'a.txt'), 'foo one\n');
  writeFileSync(join(repo, 'b.txt'), 'foo two\n');
  writeFileSync(join(repo, 'c.txt'), 'nothing to rename\n');
  writeFileSync(join(repo, '.gitignore'), '.raymond/\n');
  await git(repo, 'add', '-A');
  await git(repo, 'commit', '-qm', 'initial');
  return repo;
}

describe('batch refactor across git worktrees (real claude, scripted API)', () => {
  it('forks a worker per target into its own worktree, commits there, cleans up untouched ones, and reports', async () => {
    const repo = await makeRepo();
    const s = box.server;
    // As a model would with the worker's grant: read the file, edit it, commit with git; Bash for anything else is denied.
    const turns = new Map<string, number>();
    s.on((r) => r.prompt.includes('Apply the refactoring described in') && !r.cwd?.includes('repo-nogrant'), (r) => {
      const target = /to `([^`]+)` only/.exec(r.prompt)![1]!;
      const file = join(r.cwd!, target);
      const n = turns.get(target) ?? 0;
      turns.set(target, n + 1);
      const steps = target === 'c.txt'
        ? [{ toolUse: { name: 'Read', input: { file_path: file } } }]
        : [
            { toolUse: { name: 'Read', input: { file_path: file } } },
            { toolUse: { name: 'Edit', input: { file_path: file, old_string: 'foo', new_string: 'bar' } } },
            { toolUse: { name: 'Bash', input: { command: `git add ${target} && git commit -qm "refactor: ${target}"`, description: `commit ${target}` } } },
          ];
      return steps[n] ?? { text: `Done with ${target}.` };
    });
    const r = await raymond([join(ROOT, 'workflows/examples/batch-refactor'), '--input', 'a.txt b.txt c.txt', '--workflow-id', 'batch', '--json'], { cwd: repo, env: box.env() });
    assert.equal(r.code, 0, r.stderr);
    const out = summary(r) as ReturnType<typeof summary> & { worktrees: Array<{ agent: string; branch: string; path: string; mode: string; commits: number; diffstat: string; removed: boolean }> };
    assert.match(out.results.main!, /^3 workers done\./);
    assert.equal(out.results.main_worker1, 'a.txt: refactor: a.txt');
    assert.equal(out.results.main_worker3, 'c.txt: initial', 'c.txt needed no change');
    const byAgent = Object.fromEntries(out.worktrees.map((w) => [w.agent, w]));
    const w1 = byAgent.main_worker1!;
    assert.deepEqual([w1.branch, w1.mode, w1.commits, w1.diffstat, w1.removed], ['raymond/batch/main_worker1', 'keep-ignored', 1, '1 file changed, 1 insertion(+), 1 deletion(-)', false]);
    assert.match(w1.path, /\.raymond\/worktrees\/batch\/pool-\d+$/, 'a folder of the pool');
    assert.equal(byAgent.main_worker3!.removed, true);

    // The branches, as git sees them.
    assert.equal(await git(repo, 'show', 'raymond/batch/main_worker2:b.txt'), 'bar two');
    assert.equal(await git(repo, 'log', '-1', '--format=%s', 'raymond/batch/main_worker2'), 'refactor: b.txt');
    assert.equal(await git(repo, 'branch', '--list', 'raymond/batch/main_worker3'), '', 'the untouched branch is gone');
    assert.equal(existsSync(join(repo, '.raymond/worktrees/batch')), false, "the pool's folders went with the run");
    assert.equal(await git(repo, 'show', 'main:a.txt'), 'foo one', 'main is untouched');
    // Each worker ran in its own worktree.
    const cwds = s.requestsFor('Apply the refactoring').map((q) => q.cwd).filter((c) => c && !c.endsWith('repo'));
    assert.ok(cwds.length >= 3 && cwds.every((c) => /\.raymond\/worktrees\/batch\/pool-\d+$/.test(c!)), cwds.join(' '));
    assert.match(r.stderr, /worktrees \(3 branches; pooled folders: at most \d alive, \d checked out, reused \d times\):\n {2}main_worker1: raymond\/batch\/main_worker1: 1 commit, 1 file changed/);

    const list = await raymond(['worktrees', 'batch'], { cwd: repo });
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^main_worker1 {2}raymond\/batch\/main_worker1 {2}1 commit, 1 file changed.* {2}not checked out$/m);
    assert.match(list.stdout, /^main_worker3 {2}raymond\/batch\/main_worker3 {2}deleted \(no changes\)$/m);
    await git(repo, 'worktree', 'add', '-q', join(box.dir, 'review'), 'raymond/batch/main_worker2');
    assert.match((await raymond(['worktrees', 'batch'], { cwd: repo })).stdout, /^main_worker2 .* {2}checked out at .*review$/m);
    const pruned = await raymond(['worktrees', 'batch', '--prune'], { cwd: repo });
    assert.equal(pruned.code, 0, pruned.stderr);
    assert.equal(await git(repo, 'log', '-1', '--format=%s', 'raymond/batch/main_worker1'), 'refactor: a.txt', 'the branch is kept');
  });

  it("without the worker's grant, the denied commands are reported and counted", async () => {
    const repo = await makeRepo('repo-nogrant');
    const wf = join(box.dir, 'nogrant');
    mkdirSync(wf);
    for (const f of ['START.sh', 'REPORT.sh', 'FINISH.sh', 'WORKER.md']) {
      const text = readFileSync(join(ROOT, 'workflows/examples/batch-refactor', f), 'utf8');
      writeFileSync(join(wf, f), f === 'WORKER.md' ? text.replace(/^tools: .*\n/m, '') : text, { mode: 0o755 });
    }
    box.server.on('Apply the refactoring described in', (r) => {
      const target = /to `([^`]+)` only/.exec(r.prompt)![1]!;
      if (r.afterTool) return { text: `Done with ${target}.` };
      return { toolUse: { name: 'Bash', input: { command: `sed -i 's/foo/bar/' ${target} && git add -A && git commit -qm "refactor: ${target}"` } } };
    });
    const r = await raymond([wf, '--input', 'a.txt b.txt', '--workflow-id', 'nogrant', '--json'], { cwd: repo, env: box.env() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /\[main_worker1\] denied: Bash\(sed -i 's\/foo\/bar\/' a\.txt && git add -A && git commit/);
    assert.match(r.stderr, /; 2 tool calls denied;/);
    const out = JSON.parse(r.stdout) as { permission_denials: Array<{ agent: string; state: string; tool: string }> };
    assert.deepEqual(out.permission_denials.map((d) => [d.agent, d.state, d.tool]).sort(), [['main_worker1', 'WORKER.md', 'Bash'], ['main_worker2', 'WORKER.md', 'Bash']]);
  });

  it('worktree="..." outside a git repository is a clear error', async () => {
    const plain = join(box.dir, 'plain');
    mkdirSync(plain);
    writeFileSync(join(plain, 'START.sh'), '#!/usr/bin/env bash\necho "<fork next=\\"END\\" worktree=\\"x\\">W</fork>"\n');
    writeFileSync(join(plain, 'W.sh'), '#!/usr/bin/env bash\necho "<result>w</result>"\n');
    writeFileSync(join(plain, 'END.sh'), '#!/usr/bin/env bash\necho "<result>e</result>"\n');
    const r = await raymond(['.', '--json'], { cwd: plain });
    assert.equal(r.code, 1);
    assert.match(summary(r).error!, /not inside a git repository: worktree="x" needs one/);
    assert.match(summary(r).error!, /worktree="x"/);
  });
});
