import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { WorktreeRef } from '../../machines/types.js';
import { detachFolder, worktreesDir } from './git-worktrees.js';
import { averageHold } from './pool-growth.js';
import { clearStaleLocks, readFolder } from './worktree-folder.js';
import type { Folder } from './worktree-switch.js';

/*
 * The pool's bookkeeping of one repository's folders (worktree-pool.ts):
 * which are free, which each live agent holds, who waits, and what is on
 * disk when a run (re)starts.
 */

export interface RepoFolders {
  dir: string;
  free: Folder[];
  /** By branch: the folder each live agent's branch is checked out in. */
  held: Map<string, Folder>;
  /** Folders on disk now, including one being handed from an agent to the next. */
  count: number;
  next: number;
  /** Agents waiting for a folder: a folder given back goes to the first of them. */
  waiting: Waiter[];
  /**
   * New pooled folders are made one at a time, with their first (full)
   * checkout, and only when one more pays (pool-growth.ts): a checkout of a
   * big tree is mostly the kernel's work, and several at once on a small
   * machine each took as long as all of them in a row.
   */
  growing: boolean;
  timer?: ReturnType<typeof setTimeout>;
  /** Figures the growth is decided on. */
  createMs?: number;
  holdMs?: number;
  /** When each live agent got its folder, by branch. */
  holdsSince: Map<string, number>;
  /** `off` folders are made one at a time too, in the order asked. */
  ownFolders: Promise<void>;
}

export interface Waiter {
  w: WorktreeRef;
  agentId: string;
  /** `ready` when it is checked out on the waiter's branch already (a new folder); else a folder given back. */
  give: (got: { folder: Folder; ready: boolean }) => void;
  fail: (err: unknown) => void;
}

export const POOL_PREFIX = 'pool-';

/** `off` (and worktrees recorded before the pool) keep one folder per agent, named after it. */
export const pooled = (w: WorktreeRef) => w.mode === 'keep-ignored' || w.mode === 'clean';

/**
 * What is on disk of the run `workflowId` in `repo`, read once per
 * repository: a resumed run takes back its folders, rid of the git locks its
 * killed steps left when `clearLocks` (the caller holds the run's lock).
 */
export async function scanFolders(
  repo: string,
  workflowId: string,
  clearLocks: boolean,
): Promise<RepoFolders> {
  const dir = worktreesDir(repo, workflowId);
  const folders: RepoFolders = {
    dir,
    free: [],
    held: new Map(),
    count: 0,
    next: 1,
    waiting: [],
    growing: false,
    holdsSince: new Map(),
    ownFolders: Promise.resolve(),
  };
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const n = name.startsWith(POOL_PREFIX) ? Number(name.slice(POOL_PREFIX.length)) : NaN;
    if (Number.isInteger(n)) folders.next = Math.max(folders.next, n + 1);
    const path = join(dir, name);
    const state = readFolder(path);
    if (!state) continue;
    folders.count++;
    if (clearLocks) await clearStaleLocks(state);
    // Mid-switch: free, and the next switch into it redoes the checkout whole. Its HEAD may be on
    // the branch it was switching to already (killed between the checkout and the marker's removal;
    // the branch exists, made before the checkout): git would then refuse that branch in any other
    // folder, so the folder lets go of it first.
    if (clearLocks && state.switching !== null && state.branch !== null)
      await detachFolder(path, repo);
    const folder: Folder = { path, sparse: undefined, fresh: false };
    if (state.branch !== null && state.switching === null) folders.held.set(state.branch, folder);
    else if (Number.isInteger(n)) folders.free.push(folder);
  }
  return folders;
}

/** The folder the agent's branch is checked out in now, if any; its hold time is counted and ended. */
export function heldFolder(folders: RepoFolders, w: WorktreeRef): Folder | undefined {
  const folder = folders.held.get(w.branch);
  const since = folders.holdsSince.get(w.branch);
  if (since !== undefined) folders.holdMs = averageHold(folders.holdMs, Date.now() - since);
  folders.holdsSince.delete(w.branch);
  return folder && readFolder(folder.path)?.branch === w.branch ? folder : undefined;
}
