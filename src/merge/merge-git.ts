import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { RaymondError } from '../errors.js';
import { git, serialized } from '../worktrees/git.js';
import { readFolder } from '../worktrees/worktree-folder.js';

/** Who commits merges and fixes when the repository names nobody. */
const FALLBACK_IDENTITY = {
  GIT_AUTHOR_NAME: 'Raymond',
  GIT_AUTHOR_EMAIL: 'raymond@localhost',
  GIT_COMMITTER_NAME: 'Raymond',
  GIT_COMMITTER_EMAIL: 'raymond@localhost',
};

/** Git's sha of "no such ref" for update-ref's old value. */
const NO_REF = '';

/** `<repo>/.raymond/merges/<run>`: merge's folders for one run (its merge folder and its fix folders). */
export function mergesDir(repo: string, workflowId: string): string {
  return join(repo, '.raymond', 'merges', workflowId);
}

function fail(message: string, file: string): RaymondError {
  return new RaymondError('ERR_WORKTREE', message, { file });
}

/** The environment commits are made with: the user's identity if git has one, Raymond's otherwise. */
export async function commitEnv(repo: string): Promise<Record<string, string>> {
  const who = await git(repo, ['var', 'GIT_COMMITTER_IDENT'], repo);
  const author = await git(repo, ['var', 'GIT_AUTHOR_IDENT'], repo);
  return who.ok && author.ok ? {} : FALLBACK_IDENTITY;
}

/** The sha a revision names, or undefined. */
export async function resolveRev(repo: string, rev: string): Promise<string | undefined> {
  const r = await git(
    repo,
    ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`],
    repo,
  );
  return r.ok && r.stdout !== '' ? r.stdout : undefined;
}

/** Whether commit `a` is reachable from `b` (a branch whose tip is, is merged). */
export async function isAncestor(repo: string, a: string, b: string): Promise<boolean> {
  return (await git(repo, ['merge-base', '--is-ancestor', a, b], repo)).ok;
}

/** The files a branch changed since it left `base` (`git diff --name-only base...tip`). */
export async function changedFiles(repo: string, base: string, tip: string): Promise<string[]> {
  const r = await git(repo, ['diff', '--name-only', '--no-renames', `${base}...${tip}`], repo);
  return r.ok && r.stdout !== '' ? r.stdout.split('\n') : [];
}

/**
 * Moves `refs/heads/<into>` from `old` to `sha` only if it is still at
 * `old` (compare and swap; `old` undefined: only if it does not exist), so
 * BRANCH is only ever set to a commit merge chose, and a branch moved by
 * someone else meanwhile is refused rather than overwritten.
 */
export async function moveBranch(
  repo: string,
  into: string,
  sha: string,
  old: string | undefined,
  why: string,
): Promise<void> {
  await serialized(repo, async () => {
    const r = await git(
      repo,
      ['update-ref', '-m', `raymond merge: ${why}`, `refs/heads/${into}`, sha, old ?? NO_REF],
      repo,
    );
    if (!r.ok)
      throw fail(`cannot move ${into}: ${r.error} (did something else change it meanwhile?)`, repo);
  });
}

/**
 * Makes `path` a worktree with a detached HEAD at `sha` and nothing else in
 * it: a folder left mid-merge, mid-rebase or mid-checkout by a killed merge
 * is reset (its stale `index.lock` removed), one that is no worktree any
 * more is made again. Ignored files stay, as in the run's pool.
 */
export async function detachedFolder(repo: string, path: string, sha: string): Promise<void> {
  const state = readFolder(path);
  if (state) {
    await rm(join(state.gitDir, 'index.lock'), { force: true });
    if (
      existsSync(join(state.gitDir, 'rebase-merge')) ||
      existsSync(join(state.gitDir, 'rebase-apply'))
    )
      await git(path, ['rebase', '--abort'], path);
    const reset = await git(path, ['reset', '--hard', '--quiet'], path);
    const checkout = reset.ok
      ? await git(path, ['checkout', '--quiet', '--force', '--detach', sha], path)
      : reset;
    const clean = checkout.ok ? await git(path, ['clean', '-fdq'], path) : checkout;
    if (clean.ok) return;
  }
  await serialized(repo, async () => {
    if (existsSync(path)) await git(repo, ['worktree', 'remove', '--force', path], repo);
    await rm(path, { recursive: true, force: true });
    await git(repo, ['worktree', 'prune'], repo);
    const add = await git(
      repo,
      ['worktree', 'add', '--quiet', '--force', '--detach', path, sha],
      repo,
    );
    if (!add.ok) throw fail(`cannot make the folder ${path}: ${add.error}`, repo);
  });
}

/** Removes one of merge's folders (its branch, if any, stays). */
export async function removeMergeFolder(repo: string, path: string): Promise<void> {
  await serialized(repo, async () => {
    if (existsSync(path)) await git(repo, ['worktree', 'remove', '--force', path], repo);
    await rm(path, { recursive: true, force: true });
    await git(repo, ['worktree', 'prune'], repo);
  });
}

/** The files left unmerged in a folder, and its `git status --short`, for the report and the agent. */
export async function conflictState(folder: string): Promise<{ files: string[]; status: string }> {
  const u = await git(folder, ['diff', '--name-only', '--diff-filter=U'], folder);
  const s = await git(folder, ['status', '--short'], folder);
  return {
    files: u.ok && u.stdout !== '' ? [...new Set(u.stdout.split('\n'))] : [],
    status: s.ok ? s.stdout : '',
  };
}

/** What `git merge --no-ff` of a branch did in the merge folder. */
export type MergeTry =
  { ok: true; sha: string } | { ok: false; conflicts: string[]; status: string; error: string };

/**
 * Merges `tip` into the merge folder's HEAD with a merge commit. On a
 * conflict (or any failure) the folder is put back as it was and the
 * conflicted files are returned: nothing of a failed merge is kept.
 */
export async function mergeInto(
  folder: string,
  tip: string,
  message: string,
  env: Record<string, string>,
): Promise<MergeTry> {
  const head = await git(folder, ['rev-parse', 'HEAD'], folder);
  const m = await git(
    folder,
    [
      '-c',
      'core.hooksPath=/dev/null',
      'merge',
      '--no-ff',
      '--no-edit',
      '--no-gpg-sign',
      '-m',
      message,
      tip,
    ],
    folder,
    env,
  );
  if (m.ok) {
    const sha = await git(folder, ['rev-parse', 'HEAD'], folder);
    return { ok: true, sha: sha.stdout };
  }
  const { files, status } = await conflictState(folder);
  await git(folder, ['merge', '--abort'], folder);
  await git(folder, ['reset', '--hard', '--quiet', head.stdout], folder);
  await git(folder, ['clean', '-fdq'], folder);
  return { ok: false, conflicts: files, status, error: m.error };
}

/** The commits `from..to` along the first parents (a merge of BRANCH counts once, not with what it brought), oldest first. */
export async function commitsBetween(
  folder: string,
  from: string,
  to: string,
): Promise<Array<{ sha: string; subject: string }>> {
  const r = await git(
    folder,
    ['log', '--reverse', '--first-parent', '--format=%H %s', `${from}..${to}`],
    folder,
  );
  if (!r.ok || r.stdout === '') return [];
  return r.stdout.split('\n').map((l) => ({ sha: l.slice(0, 40), subject: l.slice(41) }));
}

/** Deletes a branch unless it is checked out somewhere; says whether it went. */
export async function deleteBranchIfFree(repo: string, branch: string): Promise<boolean> {
  return serialized(
    repo,
    async () => (await git(repo, ['branch', '-D', '--quiet', '--end-of-options', branch], repo)).ok,
  );
}
