import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { historyFiles, historyKey, historyRoot } from './history-paths.js';
import { runCosts, type RunCosts } from './history-stats.js';
import { rebuildHistory } from './history-rebuild.js';
import { runRecordSchema, stepRecordSchema } from './history-schemas.js';
import { historyKeys } from './history-store.js';
import type { RunRecord, StepRecord } from './history-types.js';

/** The lines of a log that hold `needle`, found as bytes before any line is parsed. */
async function linesWith(path: string, needle: string): Promise<string[]> {
  let data: Buffer;
  try {
    data = await readFile(path);
  } catch {
    return [];
  }
  const out: string[] = [];
  const find = Buffer.from(needle);
  for (let at = data.indexOf(find); at >= 0; at = data.indexOf(find, at + 1)) {
    const start = data.lastIndexOf(0x0a, at) + 1;
    let end = data.indexOf(0x0a, at);
    if (end < 0) end = data.length;
    out.push(data.toString('utf8', start, end));
    at = end;
  }
  return out;
}

/** The lines that are valid records; a line a kill cut short, or any other, is left out. */
function parsedLines<T>(lines: string[], schema: { check(value: unknown): boolean }): T[] {
  const out: T[] = [];
  for (const line of lines) {
    try {
      const value: unknown = JSON.parse(line);
      if (schema.check(value)) out.push(value as T);
    } catch {
      // A line a kill cut short.
    }
  }
  return out;
}

/** One run's records in the history: its steps in order, and its latest run record. */
export interface RunHistory {
  key: string;
  steps: StepRecord[];
  record?: RunRecord;
}

/**
 * Finds a run in a project's history (in `key`'s logs when given, else in
 * every workflow's) and reads its records. The logs are searched as bytes
 * for the run's id, so a history of 100,000 runs is read once, not parsed.
 */
export async function readRunHistory(
  projectRoot: string,
  run: string,
  key?: string,
): Promise<RunHistory | undefined> {
  const root = historyRoot(projectRoot);
  if (!existsSync(root)) await rebuildHistory(projectRoot);
  const needle = `"run":${JSON.stringify(run)},`;
  for (const k of key === undefined ? historyKeys(projectRoot) : [key]) {
    const files = historyFiles(root, k);
    const steps = parsedLines<StepRecord>(
      await linesWith(files.steps, needle),
      stepRecordSchema,
    ).filter((r) => r.run === run);
    const records = parsedLines<RunRecord>(
      await linesWith(files.runs, needle),
      runRecordSchema,
    ).filter((r) => r.run === run);
    if (steps.length === 0 && records.length === 0) continue;
    const out: RunHistory = { key: k, steps };
    const record = records.at(-1);
    if (record) out.record = record;
    return out;
  }
  return undefined;
}

/** A run's cost tables from the history of the workflow it ran (none when the history has no step of it). */
export async function runCostsOf(
  projectRoot: string,
  run: string,
  scope: { kind: string; path: string },
): Promise<RunCosts | undefined> {
  const found = await readRunHistory(projectRoot, run, historyKey(scope));
  return found && found.steps.length > 0 ? runCosts(run, found.steps) : undefined;
}
