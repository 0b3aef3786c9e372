import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { execa } from 'execa';
import { CLI, alive, raymond, Sandbox, sh } from '../helpers/cli.js';
import { git, makeRepo, removeTemps } from '../helpers/git-repo.js';

const box = new Sandbox();
after(() => {
  box.remove();
  removeTemps();
});

interface Report {
  into: string;
  sha: string;
  created: boolean;
  merged: Array<{ agent: string; branch: string; sha: string; resolved: boolean }>;
  left_out: Array<{ agent: string; branch: string; reason: string }>;
  nothing_to_merge: Array<{ agent: string; reason: string }>;
  deleted: string[];
}

/**
 * A workflow whose START forks one script worker per edit into a worktree;
 * each worker writes its `text` to its `file` and commits (an empty text:
 * it changes nothing). Run in `repo` as run `id`.
 */
async function runWorkers(
  repo: string,
  id: string,
  edits: Array<{ file: string; text: string }>,
  ...options: string[]
): Promise<void> {
  const forks = edits
    .map((e) => `<fork next="DONE.sh" worktree="w" file="${e.file}" text="${e.text}">W.sh</fork>`)
    .join('');
  const wf = box.write(
    {
      'START.sh': sh(`cat <<'EOF'\n${forks}\nEOF`),
      'W.sh': sh(
        'if [[ -n "$text" ]]; then printf "%s\\n" "$text" > "$file"; git add -A; git commit -qm "write $file"; fi',
        'echo "<result>done</result>"',
      ),
      'DONE.sh': sh('echo "<result>all forked</result>"'),
    },
    id,
  );
  const r = await raymond([wf, '--workflow-id', id, '--quiet', ...options], { cwd: repo });
  assert.equal(r.code, 0, r.stderr);
}

function merge(repo: string, id: string, ...args: string[]) {
  return raymond(['merge', id, '--json', ...args], { cwd: repo, timeoutMs: 120_000 });
}

function report(r: { stdout: string; stderr: string }): Report {
  try {
    return JSON.parse(r.stdout) as Report;
  } catch {
    throw new Error(`not one JSON object:\n${r.stdout}\n${r.stderr}`);
  }
}

/** What the user has in the checkout: HEAD, its branch, and the status with an edit and an untracked file. */
function checkout(repo: string): string[] {
  return [
    git(repo, 'rev-parse', 'HEAD'),
    git(repo, 'rev-parse', '--abbrev-ref', 'HEAD'),
    git(repo, 'status', '--porcelain'),
    readFileSync(join(repo, 'README.md'), 'utf8'),
  ];
}

/** The agent branches BRANCH's history holds as merge parents, one entry per merge commit. */
function mergedParents(repo: string, into: string): string[] {
  return git(repo, 'log', '--merges', '--format=%P', into)
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(' ')[1]!);
}

const CHECK = sh(
  'if grep -rqs BAD --exclude-dir=.git .; then echo "found BAD in $(grep -rls BAD --exclude-dir=.git . | tr "\\n" " ")"; exit 1; fi',
  'echo fine',
);

describe('raymond merge (real git, script workers)', () => {
  it('merges four branches but the one failing the check, leaves the checkout alone, and a second merge moves nothing', async () => {
    const repo = makeRepo({ 'README.md': 'hello\n' });
    await runWorkers(repo, 'four', [
      { file: 'a.txt', text: 'alpha' },
      { file: 'b.txt', text: 'BAD beta' },
      { file: 'c.txt', text: 'gamma' },
      { file: 'd.txt', text: 'delta' },
      { file: 'e.txt', text: '' },
    ]);
    const check = join(box.dir, 'check-four.sh');
    writeFileSync(check, CHECK, { mode: 0o755 });
    // The user is at work in the checkout: an edit and an untracked file.
    writeFileSync(join(repo, 'README.md'), 'hello, edited\n');
    writeFileSync(join(repo, 'scratch.txt'), 'mine\n');
    const before = checkout(repo);
    const r = await merge(repo, 'four', '--into', 'raymond/four/merged', '--check', check);
    assert.equal(r.code, 1, r.stderr);
    const out = report(r);
    assert.equal(out.created, true);
    assert.deepEqual(out.merged.map((m) => m.agent).sort(), ['main_w1', 'main_w3', 'main_w4']);
    assert.deepEqual(
      out.left_out.map((l) => l.agent),
      ['main_w2'],
    );
    assert.match(
      out.left_out[0]!.reason,
      /the check `.*check-four\.sh` exited with 1; its agent has no Claude Code or pi session/,
    );
    assert.deepEqual(
      out.nothing_to_merge.map((n) => n.agent),
      ['main_w5'],
    );
    assert.equal(git(repo, 'rev-parse', 'raymond/four/merged'), out.sha);
    assert.deepEqual(
      git(repo, 'ls-tree', '--name-only', 'raymond/four/merged').split('\n').sort(),
      ['.gitignore', 'README.md', 'a.txt', 'c.txt', 'd.txt'],
    );
    assert.match(r.stderr, /not merged: the check .* exited with 1/);
    assert.deepEqual(checkout(repo), before, "the user's HEAD, branch and files are as they were");
    assert.equal(existsSync(join(repo, '.raymond/merges/four')), false, "merge's folder is gone");

    // As a merge killed while writing its state leaves it.
    const temp = join(repo, '.raymond/state/four.merge.123456');
    writeFileSync(temp, '{"half');
    const again = await merge(repo, 'four', '--into', 'raymond/four/merged', '--check', check);
    assert.equal(existsSync(temp), false, "a dead writer's temporary file is removed");
    assert.equal(existsSync(join(repo, '.raymond/state/four.merge')), true);
    assert.equal(again.code, 1, again.stderr);
    const second = report(again);
    assert.equal(second.sha, out.sha, 'BRANCH did not move');
    assert.equal(second.created, false);
    assert.deepEqual(
      second.left_out.map((l) => l.agent),
      ['main_w2'],
    );
    assert.equal(mergedParents(repo, 'raymond/four/merged').length, 3, 'each merged once');
    assert.deepEqual(checkout(repo), before);

    const text = await raymond(
      ['merge', 'four', '--into', 'raymond/four/merged', '--check', check, '--delete-merged'],
      { cwd: repo },
    );
    assert.equal(text.code, 1);
    assert.match(
      text.stdout,
      /^raymond\/four\/merged is at [0-9a-f]{10}: 3 merged, 1 left out, 1 with nothing to merge/,
    );
    assert.match(text.stdout, /^left out:\n {2}main_w2 {2}raymond\/four\/main_w2 {2}the check/m);
    assert.match(
      text.stdout,
      /^deleted: raymond\/four\/main_w\d raymond\/four\/main_w\d raymond\/four\/main_w\d$/m,
    );
    assert.equal(git(repo, 'branch', '--list', 'raymond/four/main_w1'), '');
    assert.notEqual(
      git(repo, 'branch', '--list', 'raymond/four/main_w2'),
      '',
      'the branch left out is kept',
    );
    const third = await merge(repo, 'four', '--into', 'raymond/four/merged', '--check', check);
    assert.equal(third.code, 1, third.stderr);
    assert.deepEqual(
      [report(third).merged.length, report(third).left_out.map((l) => l.agent), report(third).sha],
      [3, ['main_w2'], out.sha],
      'deleted branches are still known as merged',
    );
  });

  it('two branches conflicting on one line: the second is reported and not merged, and no conflict marker is left anywhere', async () => {
    const repo = makeRepo({ 'README.md': 'hello\n' });
    await runWorkers(repo, 'clash', [
      { file: 'README.md', text: 'hello from one' },
      { file: 'README.md', text: 'hello from two' },
    ]);
    const r = await merge(repo, 'clash', '--into', 'clash-merged');
    assert.equal(r.code, 1, r.stderr);
    const out = report(r);
    assert.deepEqual(
      out.merged.map((m) => m.agent),
      ['main_w1'],
    );
    assert.deepEqual(
      out.left_out.map((l) => [l.agent, l.reason]),
      [
        [
          'main_w2',
          'conflicts with clash-merged in README.md; its agent has no Claude Code or pi session to resolve it (a script worker)',
        ],
      ],
    );
    assert.equal(git(repo, 'show', 'clash-merged:README.md'), 'hello from one');
    assert.equal(
      (
        await execa('git', ['grep', '-l', '-e', '<<<<<<<', '-e', '>>>>>>>', 'clash-merged'], {
          cwd: repo,
          reject: false,
        })
      ).stdout,
      '',
      "no marker in BRANCH's tree",
    );
    assert.equal(
      (
        await execa('grep', ['-rl', '--exclude-dir=.git', '-e', '<<<<<<<', '-e', '>>>>>>>', repo], {
          reject: false,
        })
      ).stdout,
      '',
      'none in the checkout or any folder merge used',
    );
    assert.equal(
      readFileSync(join(repo, 'README.md'), 'utf8'),
      'hello\n',
      "the user's checkout is untouched",
    );
    assert.equal(git(repo, 'status', '--porcelain'), '');
  });

  it('refuses a BRANCH that is checked out, with one line', async () => {
    const repo = makeRepo({ 'README.md': 'hello\n' });
    await runWorkers(repo, 'busy', [{ file: 'a.txt', text: 'a' }]);
    const r = await raymond(['merge', 'busy', '--into', 'main'], { cwd: repo });
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^raymond: .*main is checked out at .*; raymond merge never touches a checkout/,
    );
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.equal(git(repo, 'log', '--oneline', 'main').split('\n').length, 1);
  });

  it("refuses an agent's own branch and a full ref name as --into, with one line, moving nothing", async () => {
    const repo = makeRepo({ 'README.md': 'hello\n' });
    await runWorkers(repo, 'names', [
      { file: 'a.txt', text: 'a' },
      { file: 'b.txt', text: 'b' },
    ]);
    const tips = () => git(repo, 'for-each-ref', '--format=%(refname) %(objectname)');
    const before = tips();
    for (const [into, why] of [
      [
        'raymond/names/main_w1',
        /--into raymond\/names\/main_w1 is in the run's own agent branches/,
      ],
      ['raymond/names/main_w2-fix', /is in the run's own agent branches/],
      [
        'refs/heads/main',
        /--into "refs\/heads\/main" is a full ref name: give the branch's name \(main\)/,
      ],
    ] as const) {
      const r = await raymond(['merge', 'names', '--into', into], { cwd: repo });
      assert.equal(r.code, 64, r.stderr);
      assert.match(r.stderr, why);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
    assert.equal(tips(), before, 'no branch moved or was made');
    assert.doesNotMatch(git(repo, 'branch', '--list'), /refs\/heads/);
  });

  it('a --check that exits 0 but leaves a child in the background passes at once', async () => {
    const repo = makeRepo({ 'README.md': 'hello\n' });
    // A run timeout of 3 s is the check's inactivity limit: waiting for the child's 40 s would fail it.
    await runWorkers(repo, 'bgcheck', [{ file: 'a.txt', text: 'a' }], '--timeout', '3');
    const r = await merge(repo, 'bgcheck', '--into', 'bg-merged', '--check', 'sleep 40 & exit 0');
    assert.equal(r.code, 0, r.stderr);
    const out = report(r);
    assert.deepEqual(
      out.merged.map((m) => m.agent),
      ['main_w1'],
    );
    assert.deepEqual(out.left_out, []);
    assert.equal(git(repo, 'show', 'bg-merged:a.txt'), 'a');
  });

  it('runs from a script state of the same run while the run is live, reading its state file only', async () => {
    const repo = makeRepo({ 'README.md': 'hello\n' });
    const log = join(box.dir, 'live-log');
    const wf = box.write(
      {
        'START.sh': sh(
          `echo '<fork next="MERGE.sh" worktree="w" file="a.txt">W.sh</fork><fork next="MERGE.sh" worktree="w" file="b.txt">W.sh</fork>'`,
        ),
        'W.sh': sh(
          'echo "$file" > "$file"; git add -A; git commit -qm "write $file"; echo "<result>done</result>"',
        ),
        // Waits for its workers as a join would, then merges them into the run's own branch.
        'MERGE.sh': sh(
          'finished() { node "$CLI" --status "$RAYMOND_WORKFLOW_ID" --json | node -e \'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>process.exit(JSON.parse(s).agents.every((a)=>a.id==="main"||a.status==="terminated")?0:1))\'; }',
          'until finished; do sleep 0.2; done',
          'node "$CLI" merge "$RAYMOND_WORKFLOW_ID" --into "raymond/$RAYMOND_WORKFLOW_ID/merged" --check "test -s a.txt" > "$LOG" 2>&1; code=$?',
          'echo "<result>merge exited $code</result>"',
        ),
      },
      'live',
    );
    const r = await raymond([wf, '--workflow-id', 'live', '--json'], {
      cwd: repo,
      env: { CLI, LOG: log },
      timeoutMs: 120_000,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).results.main, 'merge exited 0', readFileSync(log, 'utf8'));
    assert.match(
      readFileSync(log, 'utf8'),
      /^raymond\/live\/merged \(created at the run's base [0-9a-f]{10}\) is at [0-9a-f]{10}: 2 merged, 0 left out;/m,
    );
    assert.deepEqual(
      git(repo, 'ls-tree', '--name-only', 'raymond/live/merged').split('\n').sort(),
      ['.gitignore', 'README.md', 'a.txt', 'b.txt'],
    );
  });

  it('killed with SIGKILL while the check runs, run again: every branch merged once, BRANCH never at a commit that failed the check', async () => {
    const repo = makeRepo({ 'README.md': 'hello\n' });
    await runWorkers(repo, 'kill', [
      { file: 'a.txt', text: 'a' },
      { file: 'b.txt', text: 'BAD b' },
      { file: 'c.txt', text: 'c' },
      { file: 'd.txt', text: 'd' },
    ]);
    const log = join(box.dir, 'kill-log');
    writeFileSync(log, '');
    // The check logs each commit it judged; the third time it runs (the first time only), it hangs, to be killed.
    const check = join(box.dir, 'check-kill.sh');
    writeFileSync(
      check,
      sh(
        `n=$(grep -c . "${log}" || true)`,
        `if [[ "$n" == 2 && ! -e "${log}.hung" ]]; then ps -o pgid= $$ > "${log}.hung"; sleep 60; fi`,
        `if grep -rqs BAD --exclude-dir=.git .; then echo "$(git rev-parse HEAD) fail" >> "${log}"; exit 1; fi`,
        `echo "$(git rev-parse HEAD) pass" >> "${log}"`,
      ),
      { mode: 0o755 },
    );
    const child = execa(
      process.execPath,
      [CLI, 'merge', 'kill', '--into', 'kill-merged', '--check', check],
      { cwd: repo, reject: false, stdin: 'ignore' },
    );
    for (let i = 0; i < 400 && !existsSync(`${log}.hung`); i++) await sleep(50);
    assert.ok(existsSync(`${log}.hung`), 'the check hung');
    child.kill('SIGKILL');
    await child;
    // The killed merge's watchdog ends the check's group (src/executors/group-watchdog.ts).
    for (let i = 0; i < 100 && readFileSync(`${log}.hung`, 'utf8').trim() === ''; i++)
      await sleep(20);
    const pgid = Number(readFileSync(`${log}.hung`, 'utf8').trim());
    for (let i = 0; i < 100 && pgid > 1 && alive(pgid); i++) await sleep(20);
    assert.ok(!(pgid > 1 && alive(pgid)), 'the hung check ended with the killed merge');
    const r = await merge(repo, 'kill', '--into', 'kill-merged', '--check', check);
    assert.equal(r.code, 1, r.stderr);
    const out = report(r);
    assert.deepEqual(out.merged.map((m) => m.agent).sort(), ['main_w1', 'main_w3', 'main_w4']);
    assert.deepEqual(
      out.left_out.map((l) => l.agent),
      ['main_w2'],
    );
    const parents = mergedParents(repo, 'kill-merged');
    assert.equal(parents.length, 3, 'three merges');
    for (const agent of ['main_w1', 'main_w3', 'main_w4'])
      assert.equal(
        parents.filter((p) => p === git(repo, 'rev-parse', `raymond/kill/${agent}`)).length,
        1,
        `${agent} merged once`,
      );
    // Every commit BRANCH was ever at (its reflog) is the run's base or a commit the check passed.
    const verdicts = new Map(
      readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split(' ') as [string, string]),
    );
    const base = git(repo, 'rev-parse', 'main');
    for (const sha of git(repo, 'reflog', 'show', '--format=%H', 'refs/heads/kill-merged').split(
      '\n',
    )) {
      assert.ok(
        sha === base || verdicts.get(sha) === 'pass',
        `BRANCH was at ${sha}, which the check judged ${verdicts.get(sha) ?? 'never'}`,
      );
    }
    assert.ok([...verdicts.values()].includes('fail'), 'the check did fail a merge');
  });
});
