import type { WorktreeRef } from '../../machines/types.js';
import { RaymondError } from '../errors.js';
import { git } from './git.js';

/** Who commits saved work when the repository names nobody; the author of the commits Raymond makes only to hold a tree. */
export const FALLBACK_IDENTITY = {
  GIT_AUTHOR_NAME: 'Raymond',
  GIT_AUTHOR_EMAIL: 'raymond@localhost',
  GIT_COMMITTER_NAME: 'Raymond',
  GIT_COMMITTER_EMAIL: 'raymond@localhost',
};

/**
 * Commits everything an agent left uncommitted in its folder (changes and
 * untracked files; ignored files stay out, as git would have them) onto the
 * agent's own branch, so the folder can go back to the pool with nothing
 * lost. The user's identity if git has one, Raymond's otherwise; hooks are
 * skipped, as a hook that refuses would lose the work. Returns the commit's sha.
 */
export async function saveWork(
  w: WorktreeRef & { path: string },
  agentId: string,
): Promise<string> {
  const fail = (why: string) =>
    new RaymondError(
      'ERR_WORKTREE',
      `cannot save the work ${agentId} left uncommitted in ${w.path}: ${why}`,
      { file: w.path },
    );
  const add = await git(w.path, ['add', '--all'], w.path);
  if (!add.ok) throw fail(add.error);
  const message = `raymond: work ${agentId} left uncommitted\n\nSaved by Raymond when ${agentId} ended, so that its worktree could be reused.`;
  const args = ['commit', '--quiet', '--no-verify', '--no-gpg-sign', '-m', message];
  let commit = await git(w.path, args, w.path);
  if (
    !commit.ok &&
    /tell me who you are|empty ident|unable to auto-detect email/i.test(commit.error)
  )
    commit = await git(w.path, args, w.path, FALLBACK_IDENTITY);
  if (!commit.ok) throw fail(commit.error);
  const sha = await git(w.path, ['rev-parse', 'HEAD'], w.path);
  if (!sha.ok) throw fail(sha.error);
  return sha.stdout;
}
