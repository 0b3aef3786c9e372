import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { historyFiles, historyRoot } from './history-paths.js';
import { historyKeys } from './history-store.js';

/** How much of the history to keep: the newest `keep` runs of each workflow, and none older than `olderThanMs` ago. */
export interface PruneBounds {
  keep?: number;
  olderThanMs?: number;
}

/** What a prune removed. */
export interface PruneReport {
  workflows: number;
  runsKept: number;
  runsRemoved: number;
  bytesBefore: number;
  bytesAfter: number;
}

const runOf = (line: string) => /^\{"v":1,"run":("(?:[^"\\]|\\.)*")/.exec(line)?.[1];

async function lines(path: string): Promise<string[]> {
  try {
    return (await readFile(path, 'utf8')).split('\n').filter((l) => l !== '');
  } catch {
    return [];
  }
}

/** Writes a log anew beside the old one and renames it into place: a reader sees one or the other. */
async function replace(path: string, kept: string[]): Promise<number> {
  const text = kept.length ? `${kept.join('\n')}\n` : '';
  await writeFile(`${path}.prune`, text);
  await rename(`${path}.prune`, path);
  return Buffer.byteLength(text);
}

/**
 * Bounds a project's history: per workflow, the runs outside the bounds lose
 * their step and run records, and the index is dropped (the next reader
 * folds the shorter logs). A run's age is its latest record's time. Runs
 * that are writing while the history is pruned may lose the lines they
 * write meanwhile.
 */
export async function pruneHistory(
  projectRoot: string,
  bounds: PruneBounds,
  now = Date.now(),
): Promise<PruneReport> {
  const report: PruneReport = {
    workflows: 0,
    runsKept: 0,
    runsRemoved: 0,
    bytesBefore: 0,
    bytesAfter: 0,
  };
  const root = historyRoot(projectRoot);
  for (const key of historyKeys(projectRoot)) {
    const files = historyFiles(root, key);
    const steps = await lines(files.steps);
    const runs = await lines(files.runs);
    // The latest time each run was seen at, from its records.
    const seen = new Map<string, number>();
    for (const line of [...steps, ...runs]) {
      const run = runOf(line);
      if (run === undefined) continue;
      const at = /"(?:at|endedAt)":(\d+)/.exec(line)?.[1];
      seen.set(run, Math.max(seen.get(run) ?? 0, Number(at ?? 0)));
    }
    const newest = [...seen].sort((a, b) => b[1] - a[1]);
    const kept = new Set(
      newest
        .filter(
          ([, at], i) =>
            (bounds.keep === undefined || i < bounds.keep) &&
            (bounds.olderThanMs === undefined || now - at <= bounds.olderThanMs),
        )
        .map(([run]) => run),
    );
    const keep = (l: string) => {
      const run = runOf(l);
      return run !== undefined && kept.has(run);
    };
    report.workflows++;
    report.runsKept += kept.size;
    report.runsRemoved += seen.size - kept.size;
    report.bytesBefore += [...steps, ...runs].reduce((a, l) => a + Buffer.byteLength(l) + 1, 0);
    report.bytesAfter += await replace(files.steps, steps.filter(keep));
    report.bytesAfter += await replace(files.runs, runs.filter(keep));
    await rm(files.index, { force: true });
  }
  return report;
}
