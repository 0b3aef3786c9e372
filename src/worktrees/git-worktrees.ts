import { existsSync } from 'node:fs';
import { mkdir, rmdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { execa } from 'execa';
import { RaymondError } from '../errors.js';
import { ignoreRaymondFolder } from '../raymond-folder.js';

/** A branch checked out in its own folder for one agent. */
export interface Worktree {
  /** Top level of the repository the worktree belongs to. */
  repo: string;
  /** Absolute path of the worktree folder. */
  path: string;
  branch: string;
  /** Full sha of the commit the branch started from. */
  base: string;
}

/** What an agent left behind in its worktree. */
export interface WorktreeSummary {
  branch: string;
  path: string;
  /** Commits on the branch since `base`. */
  commits: number;
  /** `git diff --shortstat base..branch`, trimmed; '' when nothing changed. */
  diffstat: string;
  /** The worktree has uncommitted changes or untracked files. */
  dirty: boolean;
  removed: boolean;
}

interface GitResult {
  ok: boolean;
  stdout: string;
  /** Git's complaint squeezed onto one line, for error messages. */
  error: string;
}

async function git(dir: string, args: string[], cwd: string): Promise<GitResult> {
  const r = await execa('git', ['-C', dir, ...args], {
    reject: false,
    stdin: 'ignore',
    // A credential prompt would hang an unattended run forever.
    env: { GIT_TERMINAL_PROMPT: '0' },
    extendEnv: true,
  });
  if (r.exitCode === undefined) {
    const code = (r as { code?: unknown }).code;
    const why = code === 'ENOENT' ? 'git not found' : `cannot run git: ${oneLine(r.shortMessage ?? '')}`;
    throw new RaymondError('ERR_WORKTREE', why, { file: cwd });
  }
  const stdout = typeof r.stdout === 'string' ? r.stdout : '';
  const stderr = typeof r.stderr === 'string' ? r.stderr : '';
  return { ok: r.exitCode === 0, stdout: stdout.trim(), error: oneLine(stderr) || `git ${args[0]} exited with ${r.exitCode}` };
}

/** Keeps git's fatal/error lines and drops its multi-line hints. */
function oneLine(text: string): string {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('hint:'));
  return lines.join(' ');
}

// Git takes lock files on shared metadata (refs, .git/worktrees) and fails
// rather than waits when it finds one, so every mutation queues here. Reads
// (summaries) stay unserialized. The chain is per module instance, i.e. per
// thread: callers in different worker threads are not queued against each other.
let chain: Promise<unknown> = Promise.resolve();

function serialized<T>(task: () => Promise<T>): Promise<T> {
  const run = chain.then(task, task);
  // A failed task must not poison the queue for the next caller.
  chain = run.catch(() => undefined);
  return run;
}

/**
 * Creates branch `raymond/<workflowId>/<agentId>` from `base` (default HEAD) in
 * the repository around `cwd`, checked out at
 * `<repo top level>/.raymond/worktrees/<workflowId>/<agentId>`.
 * Serialized process-wide: concurrent calls queue on one promise chain.
 * @throws RaymondError ERR_WORKTREE outside a repository, on a bad base or when git refuses.
 */
export function createWorktree(opts: { cwd: string; workflowId: string; agentId: string; base?: string; name?: string }): Promise<Worktree> {
  return serialized(async () => {
    const cwd = resolve(opts.cwd);
    const fail = (why: string) => new RaymondError('ERR_WORKTREE', `cannot create worktree for ${opts.agentId}: ${why}`, { file: cwd });

    const top = await git(cwd, ['rev-parse', '--show-toplevel'], cwd);
    if (!top.ok || top.stdout === '') {
      throw new RaymondError('ERR_WORKTREE', `not inside a git repository: worktree="${opts.name ?? opts.agentId}" needs one`, { file: cwd });
    }
    const repo = resolve(top.stdout);

    // Pin the base to a sha now so later summaries compare against a fixed
    // commit even if the ref (HEAD, a branch) moves while the agent works.
    const baseRev = opts.base ?? 'HEAD';
    const sha = await git(repo, ['rev-parse', '--verify', '--end-of-options', `${baseRev}^{commit}`], cwd);
    if (!sha.ok) throw fail(`base "${baseRev}" is not a commit: ${sha.error}`);

    const branch = `raymond/${opts.workflowId}/${opts.agentId}`;
    const path = join(repo, '.raymond', 'worktrees', opts.workflowId, opts.agentId);
    await mkdir(dirname(path), { recursive: true });
    await ignoreRaymondFolder(join(repo, '.raymond'));

    // A step killed after creating its worktree runs again on resume: take the worktree back.
    if (existsSync(path)) {
      const head = await git(path, ['rev-parse', '--abbrev-ref', 'HEAD'], cwd);
      const forkPoint = await git(repo, ['merge-base', branch, sha.stdout], cwd);
      if (head.ok && head.stdout === branch && forkPoint.ok) return { repo, path, branch, base: forkPoint.stdout };
    }
    const add = await git(repo, ['worktree', 'add', '--quiet', '-b', branch, path, sha.stdout], cwd);
    if (!add.ok) throw fail(add.error);
    return { repo, path, branch, base: sha.stdout };
  });
}

/**
 * Counts commits on the branch since `base`, gives `git diff --shortstat
 * base..branch` as one line ('' when none), and reports whether the worktree
 * has uncommitted changes (tracked or untracked; ignored files do not count,
 * matching what `git worktree remove` considers clean). A worktree whose folder
 * is gone counts as clean.
 */
export async function summarizeWorktree(w: Worktree): Promise<Omit<WorktreeSummary, 'removed'>> {
  // Refs are shared by all worktrees, so ask the main repository: this still
  // works after the folder has been pruned.
  const range = `${w.base}..refs/heads/${w.branch}`;
  const count = await git(w.repo, ['rev-list', '--count', range], w.repo);
  if (!count.ok) throw new RaymondError('ERR_WORKTREE', `cannot summarize worktree ${w.branch}: ${count.error}`, { file: w.repo });
  const stat = await git(w.repo, ['diff', '--shortstat', range], w.repo);
  if (!stat.ok) throw new RaymondError('ERR_WORKTREE', `cannot summarize worktree ${w.branch}: ${stat.error}`, { file: w.repo });

  let dirty = false;
  // Without its .git file the folder is no worktree, and git would walk up
  // and report the main checkout's status instead.
  if (existsSync(join(w.path, '.git'))) {
    const status = await git(w.path, ['status', '--porcelain', '--untracked-files=all', '--ignore-submodules=none'], w.repo);
    if (!status.ok) throw new RaymondError('ERR_WORKTREE', `cannot summarize worktree ${w.branch}: ${status.error}`, { file: w.path });
    dirty = status.stdout !== '';
  }
  return { branch: w.branch, path: w.path, commits: Number(count.stdout), diffstat: stat.stdout, dirty };
}

/**
 * Removes the worktree and deletes its branch when the agent left nothing
 * behind (no new commits, no uncommitted changes); otherwise keeps both.
 * Serialized like createWorktree.
 */
export function finishWorktree(w: Worktree): Promise<WorktreeSummary> {
  return serialized(async () => {
    const summary = await summarizeWorktree(w);
    if (summary.commits > 0 || summary.dirty) return { ...summary, removed: false };

    // No --force: should a change appear after the summary, git refuses
    // rather than destroy it.
    if (existsSync(w.path)) {
      const rm = await git(w.repo, ['worktree', 'remove', w.path], w.repo);
      if (!rm.ok && existsSync(w.path)) {
        throw new RaymondError('ERR_WORKTREE', `cannot remove worktree ${w.path}: ${rm.error}`, { file: w.repo });
      }
    }
    await git(w.repo, ['worktree', 'prune'], w.repo);
    // -D, not -d: a branch forked from a non-HEAD base is never "merged".
    const del = await git(w.repo, ['branch', '-D', '--quiet', w.branch], w.repo);
    if (!del.ok && (await branchExists(w))) {
      throw new RaymondError('ERR_WORKTREE', `cannot delete branch ${w.branch}: ${del.error}`, { file: w.repo });
    }
    await removeEmptyParent(w);
    return { ...summary, removed: true };
  });
}

/**
 * Removes the worktree folder (`git worktree remove --force`) but keeps its
 * branch, so committed work stays reachable. Already-removed worktrees are
 * fine. Serialized like createWorktree.
 */
export function pruneWorktree(w: Worktree): Promise<void> {
  return serialized(async () => {
    if (existsSync(w.path)) {
      const rm = await git(w.repo, ['worktree', 'remove', '--force', w.path], w.repo);
      if (!rm.ok && existsSync(w.path)) {
        throw new RaymondError('ERR_WORKTREE', `cannot remove worktree ${w.path}: ${rm.error}`, { file: w.repo });
      }
    }
    // A folder deleted by hand leaves stale metadata that would keep the
    // branch "checked out" and block deleting it later.
    await git(w.repo, ['worktree', 'prune'], w.repo);
    await removeEmptyParent(w);
  });
}

async function branchExists(w: Worktree): Promise<boolean> {
  const r = await git(w.repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${w.branch}`], w.repo);
  return r.ok;
}

/** Drops `.raymond/worktrees/<workflowId>` once its last worktree is gone. */
async function removeEmptyParent(w: Worktree): Promise<void> {
  await rmdir(dirname(w.path)).catch(() => undefined);
}
