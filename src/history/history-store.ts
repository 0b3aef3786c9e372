import { existsSync, readdirSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import writeFileAtomic from 'write-file-atomic';
import {
  emptyIndex,
  foldRun,
  foldStep,
  runPositions,
  trimIndex,
  type HistoryIndex,
} from './history-fold.js';
import { historyFiles, historyRoot } from './history-paths.js';
import { rebuildHistory } from './history-rebuild.js';
import { runRecordSchema, stepRecordSchema } from './history-schemas.js';
import type { RunRecord, StepRecord, WorkflowHistory } from './history-types.js';

/** Past this much newly folded log, the index is written back so the next reader starts from it. */
const WRITE_BACK_BYTES = 1 << 16;

/** The whole lines of a file from `offset`, and the offset after the last of them. */
async function tailLines(
  path: string,
  offset: number,
): Promise<{ lines: string[]; end: number; restarted?: true }> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return { lines: [], end: offset };
  }
  try {
    const { size } = await handle.stat();
    // A log shorter than the index says was replaced: the caller starts over from its start.
    if (size < offset) return { lines: [], end: 0, restarted: true };
    const from = offset;
    if (size === from) return { lines: [], end: from };
    const buffer = Buffer.alloc(size - from);
    await handle.read(buffer, 0, buffer.length, from);
    // A line still being written (no newline yet) is left for the next reader.
    const last = buffer.lastIndexOf(0x0a);
    if (last < 0) return { lines: [], end: from };
    return { lines: buffer.toString('utf8', 0, last).split('\n'), end: from + last + 1 };
  } finally {
    await handle.close();
  }
}

/**
 * A log line as a record when it is one (JSON with the schema's fields), or
 * `bad`: a line a kill cut short, or one written by hand or by something
 * else, which the caller skips and counts.
 */
function parsed<T>(line: string, schema: { check(value: unknown): boolean }): T | 'bad' {
  try {
    const value: unknown = JSON.parse(line);
    return schema.check(value) ? (value as T) : 'bad';
  } catch {
    return 'bad';
  }
}

async function loadIndex(path: string, key: string): Promise<HistoryIndex> {
  try {
    const index = JSON.parse(await readFile(path, 'utf8')) as HistoryIndex;
    if (index.v === 1 && index.key === key) return index;
  } catch {
    // Missing or damaged: it is rebuilt from the logs, which it only summarises.
  }
  return emptyIndex(key);
}

/**
 * Reads one workflow's history: its index, with what the logs gained since
 * folded in (and the index written back when that was much). When the
 * project has no history at all but has runs, it is rebuilt from their
 * state files first.
 */
export async function readWorkflowHistory(
  projectRoot: string,
  key: string,
): Promise<WorkflowHistory | undefined> {
  const root = historyRoot(projectRoot);
  if (!existsSync(root)) await rebuildHistory(projectRoot);
  const files = historyFiles(root, key);
  if (!existsSync(files.dir)) return undefined;
  let index = await loadIndex(files.index, key);
  let steps = await tailLines(files.steps, index.stepsOffset);
  let runs = await tailLines(files.runs, index.runsOffset);
  if (steps.restarted || runs.restarted) {
    index = emptyIndex(key);
    steps = await tailLines(files.steps, 0);
    runs = await tailLines(files.runs, 0);
  }
  let skipped = 0;
  for (const line of steps.lines) {
    if (!line) continue;
    const r = parsed<StepRecord>(line, stepRecordSchema);
    if (r === 'bad') skipped++;
    else foldStep(index, r);
  }
  const at = runPositions(index);
  for (const line of runs.lines) {
    if (!line) continue;
    const r = parsed<RunRecord>(line, runRecordSchema);
    if (r === 'bad') skipped++;
    else foldRun(index, r, at);
  }
  // Kept in the index, so every later reader still says so (until a rebuild or prune).
  if (skipped > 0) index.skipped = (index.skipped ?? 0) + skipped;
  trimIndex(index);
  const grown = steps.end - index.stepsOffset + (runs.end - index.runsOffset);
  index.stepsOffset = steps.end;
  index.runsOffset = runs.end;
  if (grown >= WRITE_BACK_BYTES) await writeIndex(files.index, index);
  return index;
}

/** Writes an index whole, atomically: a reader sees the old one or the new one. */
export async function writeIndex(path: string, index: HistoryIndex): Promise<void> {
  try {
    await writeFileAtomic(path, JSON.stringify(index));
  } catch {
    // Only a cache of the logs: the next reader folds them again.
  }
}

/** The keys of the workflows in a project's history. */
export function historyKeys(projectRoot: string): string[] {
  try {
    return readdirSync(historyRoot(projectRoot), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
  } catch {
    return [];
  }
}

/**
 * The one warning a history with skipped lines gets (`<dir>: skipped 2 lines
 * that are no valid history record`), or undefined when it has none.
 */
export function skippedWarning(projectRoot: string, h: WorkflowHistory): string | undefined {
  const n = h.skipped ?? 0;
  if (n === 0) return undefined;
  const { dir } = historyFiles(historyRoot(projectRoot), h.key);
  return `${dir}: skipped ${n} line${n === 1 ? '' : 's'} that ${n === 1 ? 'is' : 'are'} no valid history record`;
}
