import type { WorktreeRef } from '../../machines/types.js';
import { RaymondError } from '../errors.js';
import { git, serialized } from './git.js';
import { ensureBranch } from './git-worktrees.js';
import { markSwitch, readFolder } from './worktree-folder.js';

/** A worktree folder the pool hands out. */
export interface Folder {
  path: string;
  /** Its sparse cone, null when it checks out everything, undefined when not known (found on disk). */
  sparse: string[] | null | undefined;
  /** Just added with nothing checked out: nothing to clean. */
  fresh: boolean;
  /**
   * Given back by an agent that left nothing untracked (what it left was
   * committed): only ignored files can be there, which `keep-ignored` keeps,
   * so the walk of `git clean` over the whole tree is spared.
   */
  tidy?: boolean;
}

const sameCone = (a: string[] | null | undefined, b: string[] | undefined) =>
  a !== undefined && (a ?? []).join('\n') === (b ?? []).join('\n');

/**
 * Puts the agent's branch (made from its base if new) in `folder`: the sparse
 * cone it asks for, `git checkout --force`, then `git clean` of what the last
 * agent left untracked (with `clean`, ignored files too). Runs outside the
 * repository's queue but for creating the branch: only this folder's files,
 * index and HEAD change. A marker makes a stopped switch be redone on resume.
 * @throws RaymondError ERR_WORKTREE when git refuses (the pool then makes the folder again).
 */
export async function switchFolder(folder: Folder, w: WorktreeRef): Promise<void> {
  const fail = (why: string) =>
    new RaymondError('ERR_WORKTREE', `cannot check out ${w.branch} in ${folder.path}: ${why}`, {
      file: folder.path,
    });
  const state = readFolder(folder.path);
  if (!state) throw fail('the folder is not a worktree');
  const done = await markSwitch(state.gitDir, w.branch);
  const run = async (args: string[]) => {
    const r = await git(folder.path, args, folder.path);
    if (!r.ok) throw fail(r.error);
  };
  if (!sameCone(folder.sparse, w.sparse)) {
    if (w.sparse) {
      await enableWorktreeConfig(w.repo);
      await run(['sparse-checkout', 'set', '--cone', ...w.sparse]);
    } else if (folder.sparse !== null) {
      await run(['sparse-checkout', 'disable']);
    }
  }
  await ensureBranch(w);
  await run(['checkout', '--quiet', '--force', w.branch]);
  if (!folder.fresh && !(folder.tidy && w.mode !== 'clean'))
    await run(['clean', '--quiet', '--force', '-d', ...(w.mode === 'clean' ? ['-x'] : [])]);
  await done();
  folder.sparse = w.sparse ?? null;
  folder.fresh = false;
  folder.tidy = false;
}

const configured = new Set<string>();

/**
 * A sparse cone is a worktree's own setting, which needs git's per-worktree
 * config: git turns it on in the shared config the first time, and two
 * worktrees doing so at once would fight over the config's lock. So it is
 * turned on once per repository here, in the queue.
 */
function enableWorktreeConfig(repo: string): Promise<void> {
  if (configured.has(repo)) return Promise.resolve();
  return serialized(repo, async () => {
    const now = await git(repo, ['config', '--bool', '--get', 'extensions.worktreeConfig'], repo);
    if (now.stdout !== 'true') {
      const set = await git(repo, ['config', '--bool', 'extensions.worktreeConfig', 'true'], repo);
      if (!set.ok)
        throw new RaymondError(
          'ERR_WORKTREE',
          `cannot turn on per-worktree config for sparse worktrees: ${set.error}`,
          { file: repo },
        );
    }
    configured.add(repo);
  });
}
