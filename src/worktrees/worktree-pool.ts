import { join } from 'node:path';
import type { WorktreeRef } from '../../machines/types.js';
import { RaymondError } from '../errors.js';
import { git, serialized } from './git.js';
import {
  branchCounts,
  deleteBranch,
  detachFolder,
  folderDirty,
  removeFolder,
  summarizeWorktree,
} from './git-worktrees.js';
import { growDelayMs } from './pool-growth.js';
import {
  heldFolder,
  pooled,
  POOL_PREFIX,
  scanFolders,
  type RepoFolders,
  type Waiter,
} from './pool-folders.js';
import { saveWork } from './save-work.js';
import { readFolder } from './worktree-folder.js';
import { switchFolder, type Folder } from './worktree-switch.js';
import { makeFolders } from '../make-folders.js';

/** What the pool did in a run, for the summary and `--json`. */
export interface WorktreePoolStats {
  /** Folders checked out (`git worktree add`). */
  created: number;
  /** Agents that got a folder another agent had used. */
  reused: number;
  /** Most folders alive at once. */
  peakAlive: number;
}

/** The worktree folders of one run: handed to agents when they run, taken back when they end. */
export interface WorktreePool {
  /** The folder the agent's branch is checked out in, getting one if it has none (first run, or the folder went). */
  acquire(w: WorktreeRef, agentId: string): Promise<string>;
  /** The agent terminated: counts its commits, saves what it left uncommitted (pooled), and frees or removes its folder. */
  finish(w: WorktreeRef, agentId: string): Promise<WorktreeRef>;
  /**
   * The agent waits for a while (a `<join>`): a pooled folder goes back to
   * the pool, what it left uncommitted saved on its branch first, and its
   * next step checks the branch out again. An `off` folder is its own and stays.
   */
  suspend(w: WorktreeRef, agentId: string): Promise<WorktreeRef>;
  /** Removes the folders no agent holds (the run ended); held ones stay for a resume. */
  close(): Promise<void>;
  stats(): WorktreePoolStats;
}

/**
 * The pool of one run, in `<repo>/.raymond/worktrees/<workflowId>/`. `ownsFolders` (not for a queue
 * worker): the caller holds the run's lock, so git locks in its folders are a killed step's, and go.
 */
export function createWorktreePool(workflowId: string, { ownsFolders = true } = {}): WorktreePool {
  const repos = new Map<string, Promise<RepoFolders>>();
  const figures: WorktreePoolStats = { created: 0, reused: 0, peakAlive: 0 };
  let alive = 0;
  const grew = (folders: RepoFolders) => {
    folders.count++;
    figures.peakAlive = Math.max(figures.peakAlive, ++alive);
  };
  const shrank = (folders: RepoFolders) => {
    folders.count--;
    alive--;
  };

  /** A repository's folders, what is on disk read once: a resumed run takes back its folders, and counts them alive. */
  const taken = async (repo: string) => {
    const folders = await scanFolders(repo, workflowId, ownsFolders);
    alive += folders.count;
    figures.peakAlive = Math.max(figures.peakAlive, alive);
    return folders;
  };
  const foldersOf = (repo: string) => {
    let found = repos.get(repo);
    if (!found) repos.set(repo, (found = taken(repo)));
    return found;
  };

  /** A new folder, detached at `base`, with nothing checked out yet: adding to the worktree list is the only queued part. */
  function addFolder(
    folders: RepoFolders,
    repo: string,
    path: string,
    base: string,
  ): Promise<Folder> {
    return serialized(repo, async () => {
      grew(folders);
      await makeFolders(join(path, '..'));
      const add = await git(
        repo,
        ['worktree', 'add', '--quiet', '--no-checkout', '--detach', path, base],
        repo,
      );
      if (!add.ok) {
        shrank(folders);
        throw new RaymondError('ERR_WORKTREE', `cannot create worktree ${path}: ${add.error}`, {
          file: repo,
        });
      }
      figures.created++;
      return { path, sparse: null, fresh: true };
    });
  }

  async function newFolder(folders: RepoFolders, w: WorktreeRef, agentId: string): Promise<Folder> {
    const name = pooled(w) ? `${POOL_PREFIX}${folders.next++}` : agentId;
    return addFolder(folders, w.repo, join(folders.dir, name), w.base);
  }

  /** Switches the folder to the agent's branch; a folder git cannot switch is removed and made again, once. */
  async function checkOut(
    folders: RepoFolders,
    folder: Folder,
    w: WorktreeRef,
    agentId: string,
  ): Promise<Folder> {
    try {
      await switchFolder(folder, w);
      return folder;
    } catch (err) {
      if (!(err instanceof RaymondError)) throw err;
      await removeFolder(w.repo, folder.path);
      shrank(folders);
      const again = await newFolder(folders, w, agentId);
      await switchFolder(again, w);
      return again;
    }
  }

  /** Makes a folder for the waiter, checked out on its branch, and times it. */
  async function make(folders: RepoFolders, waiter: Waiter): Promise<void> {
    const started = Date.now();
    try {
      const created = await newFolder(folders, waiter.w, waiter.agentId);
      const folder = await checkOut(folders, created, waiter.w, waiter.agentId);
      folders.createMs = Date.now() - started;
      waiter.give({ folder, ready: true });
    } catch (err) {
      waiter.fail(err);
    }
  }

  /** Makes one more pooled folder for the first waiter when it pays, or looks again when it might. */
  function grow(folders: RepoFolders): void {
    if (folders.growing) return;
    clearTimeout(folders.timer);
    const now = Date.now();
    const since = [...folders.holdsSince.values()];
    const delay = growDelayMs({
      alive: folders.count,
      waiting: folders.waiting.length,
      createMs: folders.createMs,
      holdMs: folders.holdMs,
      oldestHoldMs: since.length > 0 ? now - Math.min(...since) : undefined,
    });
    if (delay === Number.POSITIVE_INFINITY) return;
    // Referenced: a waiting agent's step may hold the last step slot, and only this look lets it go on.
    if (delay > 0) return void (folders.timer = setTimeout(() => grow(folders), Math.ceil(delay)));
    folders.growing = true;
    void make(folders, folders.waiting.shift()!).finally(() => {
      folders.growing = false;
      grow(folders);
    });
  }

  /**
   * A folder for an agent when none is free: a pooled agent waits for one
   * given back or made (whichever comes first); an `off` agent gets its own.
   */
  function nextFolder(
    folders: RepoFolders,
    w: WorktreeRef,
    agentId: string,
  ): Promise<{ folder: Folder; ready: boolean }> {
    return new Promise((give, fail) => {
      const waiter: Waiter = { w, agentId, give, fail };
      if (!pooled(w)) {
        folders.ownFolders = folders.ownFolders.then(() => make(folders, waiter));
        return;
      }
      folders.waiting.push(waiter);
      grow(folders);
    });
  }

  /** Detaches a pooled folder whose work is all committed and gives it to the next agent waiting, or to the free list. */
  async function giveBack(folders: RepoFolders, folder: Folder, w: WorktreeRef): Promise<void> {
    await detachFolder(folder.path, w.repo);
    folders.held.delete(w.branch);
    // Everything it left is committed now: nothing untracked for the next switch to clean.
    folder.tidy = true;
    const waiter = folders.waiting.shift();
    if (waiter) {
      figures.reused++;
      waiter.give({ folder, ready: false });
    } else {
      folders.free.push(folder);
    }
  }

  return {
    async acquire(w, agentId) {
      const folders = await foldersOf(w.repo);
      let folder = folders.held.get(w.branch);
      if (folder) {
        const state = readFolder(folder.path);
        if (state?.branch === w.branch && state.switching === null) {
          if (!folders.holdsSince.has(w.branch)) folders.holdsSince.set(w.branch, Date.now());
          return folder.path;
        }
        folders.held.delete(w.branch);
        if (!state) {
          shrank(folders);
          folder = undefined;
        }
      }
      if (!folder && !pooled(w)) {
        // Its own folder, caught in the middle of a switch by a stopped run.
        const path = join(folders.dir, agentId);
        if (readFolder(path)) folder = { path, sparse: undefined, fresh: false };
      }
      if (!folder && pooled(w)) {
        folder = folders.free.pop();
        if (folder) figures.reused++;
      }
      if (!folder) {
        const got = await nextFolder(folders, w, agentId);
        folder = got.ready ? got.folder : await checkOut(folders, got.folder, w, agentId);
      } else {
        folder = await checkOut(folders, folder, w, agentId);
      }
      folders.held.set(w.branch, folder);
      folders.holdsSince.set(w.branch, Date.now());
      return folder.path;
    },

    async finish(w, agentId) {
      const folders = await foldersOf(w.repo);
      const folder = heldFolder(folders, w);
      const path = folder?.path;
      const done: WorktreeRef = { ...w };
      if (!pooled(w)) {
        const summary = await summarizeWorktree(w, path);
        // One folder per agent: kept, with whatever is in it, unless the agent left nothing at all.
        if (summary.commits > 0 || summary.dirty) return { ...done, ...summary, removed: false };
        if (path) {
          await removeFolder(w.repo, path);
          shrank(folders);
          folders.held.delete(w.branch);
        }
        await deleteBranch(w);
        return { ...done, ...summary, removed: true };
      }
      const dirty = await folderDirty(w, path);
      if (dirty && path) done.saved = await saveWork({ ...w, path }, agentId);
      // The folder goes on to the next agent first: the counts read refs, not the folder.
      if (folder) await giveBack(folders, folder, w);
      const counts = await branchCounts(w);
      const removed = counts.commits === 0;
      if (removed) await deleteBranch(w);
      // A dirty folder's work was saved: what is reported is that it was dirty.
      return { ...done, ...counts, dirty, removed };
    },

    async suspend(w, agentId) {
      if (!pooled(w)) return w;
      const folders = await foldersOf(w.repo);
      const folder = heldFolder(folders, w);
      if (!folder) return w;
      const out: WorktreeRef = { ...w };
      if (await folderDirty(w, folder.path))
        out.saved = await saveWork({ ...w, path: folder.path }, agentId);
      await giveBack(folders, folder, w);
      return out;
    },

    async close() {
      for (const [repo, found] of repos) {
        const folders = await found;
        clearTimeout(folders.timer);
        for (const folder of folders.free.splice(0)) {
          await removeFolder(repo, folder.path);
          shrank(folders);
        }
      }
    },

    stats: () => ({ ...figures }),
  };
}
