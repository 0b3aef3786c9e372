import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { execa } from 'execa';
import { CLI, raymond, Sandbox, sh, summary } from '../helpers/cli.js';
import { git, makeRepo, raymondBranches, removeTemps } from '../helpers/git-repo.js';

const box = new Sandbox();
after(() => {
  box.remove();
  removeTemps();
});

const PACKAGES = ['a', 'b', 'c', 'd', 'e'];
const repoFiles = Object.fromEntries([
  ['README.md', 'top\n'],
  ...PACKAGES.map((p) => [`pkg/${p}/file.txt`, `${p}\n`]),
]);

interface Worktree {
  agent: string;
  branch: string;
  base: string;
  mode: string;
  path: string | null;
  commits: number | null;
  dirty: boolean | null;
  saved: string | null;
  removed: boolean;
}
type Out = ReturnType<typeof summary> & {
  worktrees: Worktree[];
  worktree_pool?: { created: number; reused: number; peak_alive: number };
};

/**
 * A dispatcher forking `n` workers into worktrees (package `pkg` round-robin,
 * `sparse` on the tag if asked); each worker counts the run's worktree
 * folders alive as it runs, appends a line to its package's file and commits,
 * unless told to leave its work uncommitted.
 */
function workflow(
  name: string,
  n: number,
  opts: { sparse?: boolean; sleep?: string } = {},
): string {
  const sparse = opts.sparse ? ' sparse=\\"pkg/$p\\"' : '';
  return box.write(
    {
      'START.sh': sh(
        `pk=(${PACKAGES.join(' ')}); for i in $(seq 1 ${n}); do p=\${pk[$(( i % ${PACKAGES.length} ))]}; printf "<fork next=\\"DONE\\" worktree=\\"w\\"${sparse} pkg=\\"$p\\" n=\\"$i\\">W</fork>"; done`,
      ),
      'W.sh': sh(
        // Folders alive now: the run's pool folders that are worktrees.
        'alive=0; for d in ../*/; do [[ -e "$d.git" ]] && alive=$((alive + 1)); done; echo "$alive" >> "$LOG/alive"',
        // One write per worker: two workers appending a line in two writes could interleave them.
        'echo "$(ls pkg | tr "\\n" " ")" >> "$LOG/seen"',
        // Idempotent, as a step must be to run again after a crash (at least once): it redoes only what is not done.
        'if [[ "$(git log -1 --format=%s)" == "worker $n" ]]; then echo "<result>done $n</result>"; exit 0; fi',
        'grep -qx "worker $n" "pkg/$pkg/file.txt" || echo "worker $n" >> "pkg/$pkg/file.txt"',
        opts.sleep ? `sleep ${opts.sleep}` : 'true',
        'if [[ "$n" == 3 ]]; then echo "scratch of $n" > notes.txt; echo "<result>left it</result>"; exit 0; fi',
        'git commit -qam "worker $n" && echo "<result>done $n</result>"',
      ),
      'DONE.sh': sh('echo "<result>all done</result>"'),
    },
    name,
  );
}

function logDir(name: string): string {
  const dir = join(box.dir, `${name}-log`);
  mkdirSync(dir, { recursive: true });
  return dir;
}
const maxAlive = (log: string) =>
  Math.max(...readFileSync(join(log, 'alive'), 'utf8').trim().split('\n').map(Number));

/** Every agent's `raymond/<wf>/*` branch's commit count over main (not the branches that keep killed steps' work). */
function commitsPerBranch(repo: string, wf: string): Map<string, number> {
  return new Map(
    raymondBranches(repo)
      .filter((b) => b.startsWith(`raymond/${wf}/`) && !b.includes('-interrupted-'))
      .map((b) => [b, Number(git(repo, 'rev-list', '--count', `main..${b}`))]),
  );
}

describe('worktrees sized to concurrency (real git)', () => {
  it('50 workers at --max-parallel 3: a branch and a commit each, never more than 7 folders alive, uncommitted work saved, the summary right', async () => {
    const repo = makeRepo(repoFiles);
    const wf = workflow('fifty', 50);
    const log = logDir('fifty');
    const r = await raymond([wf, '--workflow-id', 'fifty', '--max-parallel', '3', '--json'], {
      cwd: repo,
      env: { LOG: log },
      timeoutMs: 120_000,
    });
    assert.equal(r.code, 0, r.stderr);
    const out = summary(r) as Out;
    assert.equal(out.results.main, 'all done');
    assert.ok(maxAlive(log) <= 7, `at most 7 folders alive, saw ${maxAlive(log)}`);
    assert.ok(
      out.worktree_pool!.peak_alive <= 7 && out.worktree_pool!.created <= 7,
      JSON.stringify(out.worktree_pool),
    );
    assert.ok(out.worktree_pool!.reused >= 43, JSON.stringify(out.worktree_pool));
    // Each worker saw the whole tree and only its own package's change.
    const perBranch = commitsPerBranch(repo, 'fifty');
    assert.equal(perBranch.size, 50);
    for (const [branch, commits] of perBranch) assert.equal(commits, 1, branch);
    for (let i = 1; i <= 50; i++) {
      const pkg = PACKAGES[i % PACKAGES.length]!;
      assert.equal(
        git(repo, 'show', `raymond/fifty/main_w${i}:pkg/${pkg}/file.txt`),
        `${pkg}\nworker ${i}`,
        `worker ${i} started from the base`,
      );
    }
    // Worker 3 committed nothing: its edit and its untracked file were saved on its branch.
    const w3 = out.worktrees.find((w) => w.agent === 'main_w3')!;
    assert.match(w3.saved!, /^[0-9a-f]{40}$/);
    assert.equal(git(repo, 'show', 'raymond/fifty/main_w3:notes.txt'), 'scratch of 3');
    assert.match(
      git(repo, 'log', '-1', '--format=%s', 'raymond/fifty/main_w3'),
      /raymond: work main_w3 left uncommitted/,
    );
    assert.match(
      r.stderr,
      /main_w3: raymond\/fifty\/main_w3: 1 commit, 2 files changed.*it left uncommitted work, saved as commit [0-9a-f]{10}/,
    );
    assert.match(r.stderr, /worktrees \(50 branches; pooled folders: at most [1-7] alive/);
    assert.equal(out.worktrees.length, 50);
    assert.ok(
      out.worktrees.every((w) => w.commits === 1 && !w.removed && w.mode === 'keep-ignored'),
    );
    // The pool's folders are gone; the branches are checked out nowhere.
    assert.deepEqual(
      readdirSync(join(repo, '.raymond/worktrees')).filter((d) => d === 'fifty'),
      [],
    );
    const list = await raymond(['worktrees', 'fifty'], { cwd: repo });
    assert.equal(list.code, 0, list.stderr);
    assert.match(
      list.stdout,
      /^main_w1 {2}raymond\/fifty\/main_w1 {2}1 commit, 1 file changed, 1 insertion\(\+\) {2}not checked out$/m,
    );
  });

  it('a run killed with SIGKILL mid-way resumes with every branch right', async () => {
    const repo = makeRepo(repoFiles);
    const wf = workflow('killed', 20, { sleep: '0.2' });
    const log = logDir('killed');
    const child = execa(
      process.execPath,
      [CLI, wf, '--workflow-id', 'killed', '--max-parallel', '3', '--quiet'],
      { cwd: repo, env: { LOG: log }, reject: false, stdin: 'ignore' },
    );
    // Kill once some workers have committed and others are in the middle of their step.
    for (let i = 0; i < 200 && commitsPerBranch(repo, 'killed').size < 6; i++) await sleep(50);
    child.kill('SIGKILL');
    await child;
    // As a `git commit` cut short by the kill leaves it: every folder's index lock, deterministically.
    const gitDirs = join(repo, '.git/worktrees');
    for (const name of existsSync(gitDirs) ? readdirSync(gitDirs) : [])
      writeFileSync(join(gitDirs, name, 'index.lock'), '');
    const before = [...commitsPerBranch(repo, 'killed')].filter(([, n]) => n === 1).map(([b]) => b);
    assert.ok(
      before.length >= 3 && before.length < 20,
      `killed mid-way: ${before.length} committed`,
    );
    const r = await raymond(['--resume', 'killed', '--json'], {
      cwd: repo,
      env: { LOG: log },
      timeoutMs: 120_000,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'all done');
    const after = commitsPerBranch(repo, 'killed');
    assert.equal(after.size, 20);
    for (const [branch, commits] of after)
      assert.equal(commits, 1, `${branch}: one commit, whatever the kill interrupted`);
    for (let i = 1; i <= 20; i++) {
      const pkg = PACKAGES[i % PACKAGES.length]!;
      assert.equal(
        git(repo, 'show', `raymond/killed/main_w${i}:pkg/${pkg}/file.txt`),
        `${pkg}\nworker ${i}`,
        `worker ${i}'s work, once`,
      );
    }
    for (const b of before)
      assert.match(
        git(repo, 'log', '-1', '--format=%s', b),
        /^(worker \d+|raymond: work main_w3 left uncommitted)$/,
        `${b} kept its commit`,
      );
    // A step the kill caught after its change ran again from its start; what it had done is kept aside.
    for (const b of raymondBranches(repo).filter((b) => b.includes('-interrupted-')))
      assert.match(b, /^raymond\/killed\/main_w\d+-interrupted-1$/);
    assert.ok(maxAlive(log) <= 7, `at most 7 folders alive, saw ${maxAlive(log)}`);
  });

  it('sparse="pkg/X" gives a worker a checkout of only its package (and the top-level files)', async () => {
    const repo = makeRepo(repoFiles);
    const wf = workflow('sparse', 10, { sparse: true });
    const log = logDir('sparse');
    const r = await raymond([wf, '--workflow-id', 'sparse', '--max-parallel', '2', '--json'], {
      cwd: repo,
      env: { LOG: log },
    });
    assert.equal(r.code, 0, r.stderr);
    const seen = readFileSync(join(log, 'seen'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.trim());
    assert.equal(seen.length, 10);
    assert.ok(
      seen.every((l) => PACKAGES.includes(l)),
      `each worker saw one package: ${seen.join(' | ')}`,
    );
    assert.equal(commitsPerBranch(repo, 'sparse').size, 10);
    assert.equal(
      git(repo, 'show', 'raymond/sparse/main_w4:README.md'),
      'top',
      'the branch itself is whole',
    );
    assert.deepEqual(
      (summary(r) as Out).worktrees.find((w) => w.agent === 'main_w4')!.mode,
      'keep-ignored',
    );
  });

  it('--worktrees off gives one folder per agent, named after it, kept after the run', async () => {
    const repo = makeRepo(repoFiles);
    const wf = workflow('off', 6);
    const log = logDir('off');
    const r = await raymond(
      [wf, '--workflow-id', 'off', '--max-parallel', '2', '--worktrees', 'off', '--json'],
      { cwd: repo, env: { LOG: log } },
    );
    assert.equal(r.code, 0, r.stderr);
    const out = summary(r) as Out;
    assert.deepEqual(readdirSync(join(repo, '.raymond/worktrees/off')).sort(), [
      'main_w1',
      'main_w2',
      'main_w3',
      'main_w4',
      'main_w5',
      'main_w6',
    ]);
    const w3 = out.worktrees.find((w) => w.agent === 'main_w3')!;
    assert.deepEqual([w3.mode, w3.dirty, w3.saved], ['off', true, null]);
    assert.equal(
      readFileSync(join(repo, '.raymond/worktrees/off/main_w3/notes.txt'), 'utf8'),
      'scratch of 3\n',
      'left as it was',
    );
    assert.equal(
      git(join(repo, '.raymond/worktrees/off/main_w1'), 'rev-parse', '--abbrev-ref', 'HEAD'),
      'raymond/off/main_w1',
    );
    assert.match(
      r.stderr,
      /main_w1: raymond\/off\/main_w1: 1 commit, .* at .*\.raymond\/worktrees\/off\/main_w1/,
    );
    assert.equal(existsSync(join(repo, '.raymond/worktrees/off/main_w1/.git')), true);
  });

  it('worktrees ID --prune refuses while the run is live, leaving its agents’ folders and work, and prunes once it ended', async () => {
    const repo = makeRepo(repoFiles);
    const log = logDir('live');
    const wf = box.write(
      {
        'START.sh': sh('echo "<fork next=\\"DONE\\" worktree=\\"w\\">W</fork>"'),
        // Leaves work uncommitted in its folder and waits until told to go on.
        'W.sh': sh(
          'echo wip > wip.txt; pwd > "$LOG/where"; while [ ! -f "$LOG/go" ]; do sleep 0.05; done; echo "<result>w</result>"',
        ),
        'DONE.sh': sh('echo "<result>all done</result>"'),
      },
      'live',
    );
    const child = execa(
      process.execPath,
      [CLI, wf, '--workflow-id', 'live', '--worktrees', 'off', '--quiet'],
      { cwd: repo, env: { LOG: log }, reject: false, stdin: 'ignore' },
    );
    for (let i = 0; i < 400 && !existsSync(join(log, 'where')); i++) await sleep(50);
    const folder = readFileSync(join(log, 'where'), 'utf8').trim();
    const r = await raymond(['worktrees', 'live', '--prune'], { cwd: repo });
    assert.equal(r.code, 64);
    assert.match(
      r.stderr,
      new RegExp(
        `^raymond: .*live\\.lock: run live is in use by process ${child.pid} \\(since .*\\); wait for it or stop it first\n$`,
      ),
    );
    assert.equal(
      readFileSync(join(folder, 'wip.txt'), 'utf8'),
      'wip\n',
      'the live agent’s folder and its uncommitted work are kept',
    );
    mkdirSync(log, { recursive: true });
    writeFileSync(join(log, 'go'), '');
    assert.equal((await child).exitCode, 0);
    const pruned = await raymond(['worktrees', 'live', '--prune'], { cwd: repo });
    assert.equal(pruned.code, 0, pruned.stderr);
    assert.equal(existsSync(folder), false, 'pruned once the run ended');
  });
});
