import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { execa } from 'execa';
import { CLI, raymond, sh } from '../helpers/cli.js';
import { git, makeRepo, removeTemps, tempDir } from '../helpers/git-repo.js';
import { seededRandom } from '../helpers/seeded-random.js';

after(() => removeTemps());

const WORKERS = 12;
const KILLS = Number(process.env.RESTART_KILLS ?? 5);

/**
 * A batch refactor: 12 workers, each in its own worktree, commit one change
 * and then take a while before they end (tests, a review), which is where a
 * kill finds most of them. `started.log` counts the steps that began.
 */
function refactor(log: string): string {
  const dir = tempDir('raymond-wf-');
  mkdirSync(dir, { recursive: true });
  const files = {
    'START.sh': sh(
      `for i in $(seq 1 ${WORKERS}); do printf '<fork next="END.sh" worktree="w%s" i="%s">W.sh</fork>' "$i" "$i"; done`,
    ),
    'W.sh': sh(
      `echo "$RAYMOND_AGENT_ID" >> '${log}'`,
      `echo "require('./compare.js')" >> "use-$i.js"`,
      'git add -A && git commit -qm "refactor $i"',
      'sleep 0.4',
      'echo "<result>done $i</result>"',
    ),
    'END.sh': sh('echo "<result>dispatched</result>"'),
  };
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(join(dir, name), text);
    chmodSync(join(dir, name), 0o755);
  }
  return dir;
}

const branches = (repo: string, pattern: string) =>
  git(repo, 'for-each-ref', '--format=%(refname:short)', `refs/heads/${pattern}`)
    .split('\n')
    .filter(Boolean);

for (const mode of ['keep-ignored', 'clean', 'off'] as const) {
  describe(`a killed worktree step runs again from where it started (--worktrees ${mode})`, () => {
    it(`${WORKERS} workers killed ${KILLS} times: each branch holds its step's commit once, each killed attempt's on an interrupted branch`, async () => {
      const seed = Number(process.env.RESTART_SEED ?? 20261129);
      const rand = seededRandom(seed);
      const repo = makeRepo({ 'compare.js': 'module.exports = 1;\n' });
      const log = join(tempDir('raymond-log-'), 'started.log');
      const wf = refactor(log);
      const id = `rs-${mode}`;
      const started = () =>
        existsSync(log) ? readFileSync(log, 'utf8').split('\n').length - 1 : 0;
      let kills = 0;
      let lastCode: number | undefined;
      for (let attempt = 0; attempt < KILLS + 3 && lastCode !== 0; attempt++) {
        const args =
          attempt === 0
            ? [wf, '--workflow-id', id, '--max-parallel', '4', '--worktrees', mode]
            : ['--resume', id];
        const child = execa(process.execPath, [CLI, ...args, '--quiet'], {
          cwd: repo,
          reject: false,
          stdin: 'ignore',
        });
        let exited = false;
        void child.then(() => (exited = true));
        let killed = false;
        if (kills < KILLS) {
          // Somewhere in the next few steps: most kills land in a step that committed and sleeps.
          const at = started() + 1 + Math.floor(rand() * 4);
          while (!exited && started() < at) await sleep(10);
          await sleep(50 + rand() * 250);
          if (!exited) {
            child.kill('SIGKILL');
            kills++;
            killed = true;
          }
        }
        const done = await child;
        lastCode = done.exitCode;
        if (!killed && lastCode !== 0)
          assert.fail(`seed ${seed}: a resume failed (exit ${lastCode}): ${String(done.stderr)}`);
      }
      assert.equal(lastCode, 0, `seed ${seed}: the run completed`);
      const base = git(repo, 'rev-parse', 'main');
      for (let i = 1; i <= WORKERS; i++) {
        const branch = `raymond/${id}/main_w${i}`;
        assert.deepEqual(
          git(repo, 'log', '--format=%s', `${base}..${branch}`).split('\n'),
          [`refactor ${i}`],
          `seed ${seed}: ${branch} holds its step's commit once`,
        );
        assert.equal(
          git(repo, 'show', `${branch}:use-${i}.js`),
          "require('./compare.js')",
          'the change made once',
        );
      }
      const interrupted = branches(repo, `raymond/${id}/*-interrupted-*`);
      const reran = started() - WORKERS;
      assert.ok(
        interrupted.length <= reran,
        `${interrupted.length} kept for ${reran} steps run again`,
      );
      assert.ok(
        interrupted.length >= 1,
        `seed ${seed}: no kill found a step that had changed its folder`,
      );
      for (const b of interrupted) {
        const agent = /(main_w\d+)-interrupted-\d+$/.exec(b)![1]!;
        const i = agent.slice('main_w'.length);
        const killed = git(repo, 'log', '--format=%s', `${base}..${b}`).split('\n');
        const allowed = [
          `refactor ${i}`,
          `raymond: what ${agent}'s interrupted step left uncommitted`,
        ];
        assert.ok(
          killed.every((m) => allowed.includes(m)),
          `${b}: ${killed.join(', ')}`,
        );
        assert.equal(
          git(repo, 'show', `${b}:use-${i}.js`),
          "require('./compare.js')",
          `${b} keeps the killed attempt's change`,
        );
      }
      const listed = await raymond(['worktrees', id, '--json'], { cwd: repo });
      assert.equal(listed.code, 0, listed.stderr);
      const rows = JSON.parse(listed.stdout) as Array<{ interrupted: string[] }>;
      assert.deepEqual(
        rows.flatMap((r) => r.interrupted).sort(),
        [...interrupted].sort(),
        '`raymond worktrees` lists each kept branch with its agent',
      );
      assert.ok(kills === KILLS, `seed ${seed}: killed ${kills} times`);
    });
  });
}
