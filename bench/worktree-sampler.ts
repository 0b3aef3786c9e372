import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Peaks seen under `<repo>/.raymond/worktrees` during one run. */
export interface WorktreePeaks {
  /** Most folders that were git worktrees (held a `.git` file) at one sample. */
  alive: number;
  /** Most disk used under the folder at one `du`, in KB. */
  diskKb: number;
  /** How many `du` samples the disk peak is over: few means a coarse peak. */
  diskSamples: number;
}

/** A running sampler; `stop` takes a last disk sample, so a run that ends at its peak is counted. */
export interface WorktreeSampler {
  peaks(): WorktreePeaks;
  stop(): Promise<WorktreePeaks>;
}

/** Counting folders is a few readdirs: cheap enough for every 50 ms. */
const ALIVE_MS = 50;
/** `du` walks every file (800,000 with 40 full checkouts): 250 ms between the end of one and the start of the next. */
const DISK_GAP_MS = 250;

/**
 * Worktrees alive now: folders directly under `root`, or one level deeper
 * (`<workflow_id>/<agent_id>` today, a pool's slots in any layout of up to
 * two levels), that hold a `.git` file as `git worktree add` leaves.
 */
export function countWorktrees(root: string): number {
  const dirs = (dir: string) => {
    try {
      return readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => join(dir, e.name));
    } catch {
      return []; // not made yet, or removed between two readdirs
    }
  };
  let alive = 0;
  for (const dir of dirs(root)) {
    if (existsSync(join(dir, '.git'))) alive++;
    else alive += dirs(dir).filter((sub) => existsSync(join(sub, '.git'))).length;
  }
  return alive;
}

/**
 * `du -sk` at the lowest CPU priority, so the sampling slows the measured
 * run as little as it can on a small machine. Files removed while du walks
 * make it exit 1 with a total still printed: the total counts.
 */
function duKb(path: string): Promise<number> {
  return new Promise((resolve) => {
    if (!existsSync(path)) return resolve(0);
    execFile('nice', ['-n', '19', 'du', '-sk', path], { encoding: 'utf8' }, (_err, stdout) =>
      resolve(Number(stdout.split('\t')[0]) || 0),
    );
  });
}

/** Samples `root` (`<repo>/.raymond/worktrees`) until stopped. */
export function sampleWorktrees(root: string): WorktreeSampler {
  const peaks: WorktreePeaks = { alive: 0, diskKb: 0, diskSamples: 0 };
  const timer = setInterval(
    () => (peaks.alive = Math.max(peaks.alive, countWorktrees(root))),
    ALIVE_MS,
  );
  let stopped = false;
  const diskOnce = async () => {
    const kb = await duKb(root);
    peaks.diskKb = Math.max(peaks.diskKb, kb);
    peaks.diskSamples++;
  };
  const diskLoop = (async () => {
    while (!stopped) {
      await diskOnce();
      if (!stopped) await new Promise((r) => setTimeout(r, DISK_GAP_MS));
    }
  })();
  return {
    peaks: () => ({ ...peaks }),
    stop: async () => {
      clearInterval(timer);
      stopped = true;
      await diskLoop;
      peaks.alive = Math.max(peaks.alive, countWorktrees(root));
      await diskOnce();
      return { ...peaks };
    },
  };
}
