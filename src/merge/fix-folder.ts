import { existsSync } from 'node:fs';
import { RaymondError } from '../errors.js';
import { git, serialized } from '../worktrees/git.js';
import { readFolder } from '../worktrees/worktree-folder.js';
import { conflictState, removeMergeFolder } from './merge-git.js';

/** How the fix folder was left for the agent. */
export type FixFolder =
  /** The agent's commits replayed onto BRANCH cleanly. */
  | { kind: 'rebased'; head: string }
  /** The rebase stopped on a conflict, so it was aborted and BRANCH merged in instead; that stopped on conflicts in `files`. */
  | { kind: 'merging'; head: string; files: string[]; status: string }
  /** The rebase stopped, and merging BRANCH in went through cleanly. */
  | { kind: 'merged'; head: string };

function fail(message: string, file: string): RaymondError {
  return new RaymondError('ERR_WORKTREE', message, { file });
}

/**
 * Makes the fix folder: `fixBranch` (re)made at `from` (the agent's branch,
 * or its last fix) and checked out at `path`, then rebased onto `onto`
 * (BRANCH's tip, `ontoName`) as far as git can take it. When the rebase stops on a
 * conflict it is aborted and `onto` is merged into the branch instead, so
 * the conflict markers are in the files and the agent concludes the merge
 * with a commit; the agent's own commits stay as they were.
 */
export async function prepareFixFolder(
  repo: string,
  path: string,
  fixBranch: string,
  from: string,
  onto: string,
  ontoName: string,
  env: Record<string, string>,
): Promise<FixFolder> {
  await removeMergeFolder(repo, path);
  await serialized(repo, async () => {
    const add = await git(
      repo,
      ['worktree', 'add', '--quiet', '--force', '-B', fixBranch, path, from],
      repo,
    );
    if (!add.ok) throw fail(`cannot make the fix folder ${path}: ${add.error}`, repo);
  });
  const head = async () => (await git(path, ['rev-parse', 'HEAD'], path)).stdout;
  const rebase = await git(
    path,
    ['-c', 'core.hooksPath=/dev/null', 'rebase', '--quiet', onto],
    path,
    env,
  );
  if (rebase.ok) return { kind: 'rebased', head: await head() };
  await git(path, ['rebase', '--abort'], path);
  const merge = await git(
    path,
    [
      '-c',
      'core.hooksPath=/dev/null',
      'merge',
      '--no-ff',
      '--no-edit',
      '--no-gpg-sign',
      '-m',
      `Merge ${ontoName} into ${fixBranch}`,
      onto,
    ],
    path,
    env,
  );
  if (merge.ok) return { kind: 'merged', head: await head() };
  const { files, status } = await conflictState(path);
  if (files.length === 0) throw fail(`cannot bring ${fixBranch} up to date: ${merge.error}`, path);
  return { kind: 'merging', head: await head(), files, status };
}

/** The fix folder after the agent's turn: its new tip, or why the fix cannot be merged. */
export type FixOutcome =
  { ok: true; head: string; committedForAgent: boolean } | { ok: false; reason: string };

/**
 * Ends what the agent's turn left: a merge it did not conclude or changes
 * it did not commit are committed for it (hooks skipped), since a turn
 * without a shell cannot commit. A rebase left stopped, files still
 * unmerged, or conflict markers left in a file the fix changed make the
 * fix unusable.
 */
export async function finishFix(
  path: string,
  onto: string,
  agentId: string,
  env: Record<string, string>,
): Promise<FixOutcome> {
  const state = readFolder(path);
  if (!state) return { ok: false, reason: 'its fix folder is gone' };
  if (existsSync(`${state.gitDir}/rebase-merge`) || existsSync(`${state.gitDir}/rebase-apply`)) {
    await git(path, ['rebase', '--abort'], path);
    return { ok: false, reason: 'the resolution left a rebase unfinished' };
  }
  const merging = existsSync(`${state.gitDir}/MERGE_HEAD`);
  const status = await git(path, ['status', '--porcelain', '--untracked-files=all'], path);
  let committedForAgent = false;
  if (merging || (status.ok && status.stdout !== '')) {
    await git(path, ['add', '--all'], path);
    const message = merging
      ? ['--no-edit']
      : ['-m', `raymond merge: the fix ${agentId} left uncommitted`];
    const commit = await git(
      path,
      [
        '-c',
        'core.hooksPath=/dev/null',
        'commit',
        '--quiet',
        '--no-verify',
        '--no-gpg-sign',
        ...message,
      ],
      path,
      env,
    );
    if (!commit.ok)
      return { ok: false, reason: `cannot commit what the resolution left: ${commit.error}` };
    committedForAgent = true;
  }
  const head = (await git(path, ['rev-parse', 'HEAD'], path)).stdout;
  const changed = await git(path, ['diff', '--name-only', '--no-renames', onto, head], path);
  const files = changed.ok && changed.stdout !== '' ? changed.stdout.split('\n') : [];
  if (files.length > 0) {
    const markers = await git(
      path,
      ['grep', '-l', '-E', '^(<<<<<<<|>>>>>>>)( |$)', head, '--', ...files],
      path,
    );
    if (markers.ok && markers.stdout !== '') {
      const left = markers.stdout.split('\n').map((l) => l.slice(head.length + 1));
      return { ok: false, reason: `the resolution left conflict markers in ${left.join(', ')}` };
    }
  }
  return { ok: true, head, committedForAgent };
}
