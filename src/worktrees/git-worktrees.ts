import { existsSync } from 'node:fs';
import { rmdir } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { WorktreeRef } from '../../machines/types.js';
import { RaymondError } from '../errors.js';
import { ignoreRaymondFolder } from '../raymond-folder.js';
import { git, serialized } from './git.js';

/** What an agent left behind on its branch. */
export interface WorktreeSummary {
  /** Commits on the branch since `base`. */
  commits: number;
  /** `git diff --shortstat base..branch`, trimmed; '' when nothing changed. */
  diffstat: string;
  /** The folder has uncommitted changes or untracked files. */
  dirty: boolean;
}

/** The repository around `cwd` and the commit a new branch starts from. */
export interface PinnedBase {
  repo: string;
  /** Full sha of `base` (default HEAD) now. */
  base: string;
}

/**
 * Finds the repository around `cwd` and pins `base` (default HEAD) to a sha,
 * so the branch starts where the workflow was when it forked, even if HEAD
 * moves before the agent first runs. Makes sure `.raymond/` is ignored there.
 * @throws RaymondError ERR_WORKTREE outside a repository or on a bad base.
 */
export async function pinBase(
  cwd: string,
  base: string | undefined,
  name: string,
): Promise<PinnedBase> {
  const dir = resolve(cwd);
  const top = await git(dir, ['rev-parse', '--show-toplevel'], dir);
  if (!top.ok || top.stdout === '')
    throw new RaymondError(
      'ERR_WORKTREE',
      `not inside a git repository: worktree="${name}" needs one`,
      { file: dir },
    );
  const repo = await mainRepository(dir, resolve(top.stdout));
  const rev = base ?? 'HEAD';
  // HEAD as the forking agent sees it: in its own worktree, its branch.
  const sha = await git(dir, ['rev-parse', '--verify', '--end-of-options', `${rev}^{commit}`], dir);
  if (!sha.ok)
    throw new RaymondError(
      'ERR_WORKTREE',
      `cannot create worktree "${name}": base "${rev}" is not a commit: ${sha.error}`,
      { file: dir },
    );
  await ignoreRaymondFolder(join(repo, '.raymond'));
  return { repo, base: sha.stdout };
}

/**
 * The repository whose worktrees a fork from `dir` joins: the main checkout,
 * also when `dir` is itself a linked worktree (an agent in a worktree forking
 * workers with worktrees), so that every folder of a run is in one pool
 * under the main checkout's `.raymond/`, never nested in another worktree.
 */
async function mainRepository(dir: string, top: string): Promise<string> {
  const common = await git(dir, ['rev-parse', '--path-format=absolute', '--git-common-dir'], dir);
  return common.ok && basename(common.stdout) === '.git' ? dirname(common.stdout) : top;
}

/** `<repo>/.raymond/worktrees/<workflow_id>`: every folder of a run's worktrees. */
export function worktreesDir(repo: string, workflowId: string): string {
  return join(repo, '.raymond', 'worktrees', workflowId);
}

/** Whether the agent's branch exists (it does once the agent first ran). */
export async function branchExists(repo: string, branch: string): Promise<boolean> {
  return (await git(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], repo)).ok;
}

/**
 * Creates the agent's branch at its pinned base unless it exists (the agent
 * ran before: a resumed run). A branch of that name that does not grow from
 * the base is someone else's and is refused. Queued: refs are shared. The
 * branch is made first and looked for only when git refuses: a new agent's
 * branch, the usual case, costs one git process.
 */
export function ensureBranch(w: WorktreeRef): Promise<void> {
  return serialized(w.repo, async () => {
    const made = await git(
      w.repo,
      ['branch', '--no-track', '--end-of-options', w.branch, w.base],
      w.repo,
    );
    if (made.ok) return;
    if (!(await branchExists(w.repo, w.branch)))
      throw new RaymondError('ERR_WORKTREE', `cannot create branch ${w.branch}: ${made.error}`, {
        file: w.repo,
      });
    const ours = await git(
      w.repo,
      ['merge-base', '--is-ancestor', w.base, `refs/heads/${w.branch}`],
      w.repo,
    );
    if (!ours.ok)
      throw new RaymondError(
        'ERR_WORKTREE',
        `branch ${w.branch} already exists and does not start from ${w.base.slice(0, 10)}: delete it, or run with another --workflow-id`,
        { file: w.repo },
      );
  });
}

/** Deletes the agent's branch, which must not be checked out anywhere. Queued. */
export function deleteBranch(w: WorktreeRef): Promise<void> {
  return serialized(w.repo, async () => {
    // -D, not -d: a branch from a non-HEAD base is never "merged".
    const del = await git(
      w.repo,
      ['branch', '-D', '--quiet', '--end-of-options', w.branch],
      w.repo,
    );
    if (!del.ok && (await branchExists(w.repo, w.branch)))
      throw new RaymondError('ERR_WORKTREE', `cannot delete branch ${w.branch}: ${del.error}`, {
        file: w.repo,
      });
  });
}

/**
 * Detaches a folder's HEAD: its branch is then checked out nowhere, and can
 * be deleted, or checked out by the user. HEAD alone changes (the folder's
 * own ref): unlike `checkout --detach`, no walk of the tree.
 */
export async function detachFolder(path: string, repo: string): Promise<void> {
  const r = await git(
    path,
    ['update-ref', '--no-deref', '-m', 'raymond: released', 'HEAD', 'HEAD'],
    repo,
  );
  if (!r.ok)
    throw new RaymondError('ERR_WORKTREE', `cannot release worktree ${path}: ${r.error}`, {
      file: path,
    });
}

const summaryError = (w: WorktreeRef, why: string, file: string) =>
  new RaymondError('ERR_WORKTREE', `cannot summarize worktree ${w.branch}: ${why}`, { file });

/**
 * Counts the branch's commits since `base` and gives `git diff --shortstat`
 * of them as one line ('' when none). Refs are shared by all worktrees, so
 * it asks the main repository: this works whatever became of the folder,
 * and needs no folder (a pool counts after handing the folder on).
 */
export async function branchCounts(
  w: WorktreeRef,
): Promise<Pick<WorktreeSummary, 'commits' | 'diffstat'>> {
  const range = `${w.base}..refs/heads/${w.branch}`;
  // Two processes at once: on a small machine most of a git run is its start.
  const [count, stat] = await Promise.all([
    git(w.repo, ['rev-list', '--count', range], w.repo),
    git(w.repo, ['diff', '--shortstat', range], w.repo),
  ]);
  if (!count.ok) throw summaryError(w, count.error, w.repo);
  if (!stat.ok) throw summaryError(w, stat.error, w.repo);
  return { commits: Number(count.stdout), diffstat: stat.stdout };
}

/**
 * Whether `folder` (the one the branch is checked out in now, if any and
 * still a worktree) has uncommitted changes or untracked files; ignored
 * files do not count. Given no folder, it walks no tree and says clean: a
 * pooled folder the agent once had may hold another agent's branch by now.
 */
export async function folderDirty(w: WorktreeRef, folder: string | undefined): Promise<boolean> {
  // Without its .git file the folder is no worktree, and git would walk up and report the main checkout.
  if (folder === undefined || !existsSync(join(folder, '.git'))) return false;
  const status = await git(
    folder,
    ['status', '--porcelain', '--untracked-files=all', '--ignore-submodules=none'],
    w.repo,
  );
  if (!status.ok) throw summaryError(w, status.error, folder);
  return status.stdout !== '';
}

/** The branch's counts (branchCounts) and whether its folder is dirty (folderDirty), read at once. */
export async function summarizeWorktree(
  w: WorktreeRef,
  folder: string | undefined,
): Promise<WorktreeSummary> {
  const [counts, dirty] = await Promise.all([branchCounts(w), folderDirty(w, folder)]);
  return { ...counts, dirty };
}

/**
 * Removes a worktree folder (`git worktree remove --force`); its branch stays,
 * so committed work stays reachable. A folder already gone is fine. Queued.
 */
export function removeFolder(repo: string, path: string): Promise<void> {
  return serialized(repo, async () => {
    if (existsSync(path)) {
      const rm = await git(repo, ['worktree', 'remove', '--force', path], repo);
      if (!rm.ok && existsSync(path))
        throw new RaymondError('ERR_WORKTREE', `cannot remove worktree ${path}: ${rm.error}`, {
          file: repo,
        });
    }
    // A folder deleted by hand leaves stale metadata that would keep its branch "checked out".
    await git(repo, ['worktree', 'prune'], repo);
    // `.raymond/worktrees/<workflow_id>` goes once its last folder has.
    await rmdir(dirname(path)).catch(() => undefined);
  });
}

/** Where each branch is checked out now, from `git worktree list --porcelain`. */
export async function checkedOut(repo: string): Promise<Map<string, string>> {
  const list = await git(repo, ['worktree', 'list', '--porcelain'], repo);
  const where = new Map<string, string>();
  let path = '';
  for (const line of list.ok ? list.stdout.split('\n') : []) {
    if (line.startsWith('worktree ')) path = line.slice('worktree '.length);
    else if (line.startsWith('branch refs/heads/'))
      where.set(line.slice('branch refs/heads/'.length), path);
  }
  return where;
}
