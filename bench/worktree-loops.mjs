// The baselines of the worktree bench: the same commits as a Raymond run,
// made by plain git commands one worker after the other (the issue's "by
// hand"), from a small process with no loader in it.
//
//   node bench/worktree-loops.mjs '{"mode":"reuse","repo":"/t/clone","dir":"/t/plain","base":"<sha>",
//                                   "script":"/t/workflow/W.sh","workers":[{"pkg":"p000","sparse":"pkg/p000"}]}'
//
// mode "reuse": one worktree, added once (timed: Raymond pays its creations
// too), then per worker `git checkout -q -B bench/<k> <base>`, `git clean
// -fdq` (ignored files stay, as with --worktrees keep-ignored), the worker's
// script.
// mode "sparse": per worker `git worktree add --no-checkout -b bench/<k>`,
// `git sparse-checkout set --cone <paths>`, `git checkout`, the worker's
// script. The worktrees stay: removing them is not part of the figure (the
// issue's 2.6 s kept all 40), and the bench deletes the whole clone after.
//
// The worker's script is Raymond's own W.sh, with `pkg` in its environment
// as a fork attribute gives it, run in the worktree. Prints {"loopMs",
// "commits"} as JSON; exits 1 with git's complaint when any command fails.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const { mode, repo, dir, base, script, workers } = JSON.parse(process.argv[2] ?? '');

/** Runs one command; a failure ends the loop with what the command said. */
function run(file, args, cwd, env = process.env) {
  const r = spawnSync(file, args, {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  if (r.status !== 0) {
    process.stderr.write(
      `${file} ${args.join(' ')} in ${cwd}: ${r.error?.message ?? r.stderr.trim()}\n`,
    );
    process.exit(1);
  }
}

const git = (cwd, ...args) => run('git', args, cwd);
const worker = (cwd, k, w) =>
  run('bash', [script], cwd, { ...process.env, pkg: w.pkg, RAYMOND_AGENT_ID: `plain_${k}` });

const started = performance.now();
if (mode === 'reuse') {
  const wt = join(dir, 'reused');
  git(repo, 'worktree', 'add', '-q', '--detach', wt, base);
  workers.forEach((w, k) => {
    git(wt, 'checkout', '-q', '-B', `bench/${k}`, base);
    git(wt, 'clean', '-fdq');
    worker(wt, k, w);
  });
} else if (mode === 'sparse') {
  workers.forEach((w, k) => {
    const wt = join(dir, `w${k}`);
    git(repo, 'worktree', 'add', '-q', '--no-checkout', '-b', `bench/${k}`, wt, base);
    git(wt, 'sparse-checkout', 'set', '--cone', ...w.sparse.split(' '));
    git(wt, 'checkout', '-q');
    worker(wt, k, w);
  });
} else {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(1);
}
const loopMs = performance.now() - started;
process.stdout.write(`${JSON.stringify({ loopMs, commits: workers.length })}\n`);
