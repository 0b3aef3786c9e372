import { readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';

/**
 * What a worktree folder says of itself, read from its files without running
 * git (a run resuming with many pooled folders reads them all): the private
 * git folder its `.git` file points to, the branch its HEAD is attached to,
 * and whether a switch was under way when the run stopped.
 */
export interface FolderState {
  /** `<repo>/.git/worktrees/<name>`: HEAD, index and our switch marker live there. */
  gitDir: string;
  /** `refs/heads/...` without the prefix; null when detached. */
  branch: string | null;
  /** The branch a switch into this folder was making when it stopped, if one was. */
  switching: string | null;
}

const MARKER = 'raymond-switch';

/** Reads a worktree folder's state; undefined when the folder is not a worktree (missing, or no `.git` file). */
export function readFolder(path: string): FolderState | undefined {
  let dotGit: string;
  try {
    dotGit = readFileSync(join(path, '.git'), 'utf8');
  } catch {
    return undefined;
  }
  const m = /^gitdir:\s*(.+?)\s*$/m.exec(dotGit);
  if (!m) return undefined;
  const gitDir = isAbsolute(m[1]!) ? m[1]! : resolve(path, m[1]!);
  let head: string;
  try {
    head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
  } catch {
    return undefined;
  }
  const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(head);
  let switching: string | null = null;
  try {
    switching = readFileSync(join(gitDir, MARKER), 'utf8').trim() || null;
  } catch {
    // No marker: no switch was under way.
  }
  return { gitDir, branch: ref ? ref[1]! : null, switching };
}

/**
 * Removes the git locks a killed run can leave in one of its folders: the
 * index's and HEAD's in the folder's private git folder, and its branch's ref
 * lock. A step's `git commit` killed with the run (the spawner kills every
 * step when the orchestrator dies) leaves `index.lock`, and the step run
 * again on resume would fail on it ("Another git process seems to be
 * running"). Called only while taking back a run's folders under its run
 * lock: no process of that run is left that could own them.
 */
export async function clearStaleLocks(state: FolderState): Promise<void> {
  const locks = [join(state.gitDir, 'index.lock'), join(state.gitDir, 'HEAD.lock')];
  if (state.branch !== null) {
    let common = '';
    try {
      common = readFileSync(join(state.gitDir, 'commondir'), 'utf8').trim();
    } catch {
      // No commondir file: not a linked worktree's folder; its branch lock is not ours to find.
    }
    if (common !== '') {
      const commonDir = isAbsolute(common) ? common : resolve(state.gitDir, common);
      locks.push(join(commonDir, 'refs', 'heads', `${state.branch}.lock`));
    }
  }
  await Promise.all(locks.map((lock) => rm(lock, { force: true })));
}

/**
 * Marks a folder as being switched to `branch` until `done` is called: a run
 * killed in between finds the marker on resume and does the switch again
 * (a half-done checkout is repaired by redoing it, never trusted).
 */
export async function markSwitch(gitDir: string, branch: string): Promise<() => Promise<void>> {
  const marker = join(gitDir, MARKER);
  await writeFile(marker, `${branch}\n`);
  // A git killed mid-checkout leaves its index lock, and every later git in the folder would refuse to start.
  await rm(join(gitDir, 'index.lock'), { force: true });
  return () => rm(marker, { force: true });
}
