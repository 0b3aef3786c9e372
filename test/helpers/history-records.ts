import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunRecord, StepRecord } from '../../src/history/history-types.js';

/** A step record with plain defaults; `over` sets what a test is about. */
export function stepRecord({
  run,
  ...over
}: Partial<StepRecord> & Pick<StepRecord, 'run' | 'state'>): StepRecord {
  // The writer's key order (v, run first): prune finds a line's run by it without parsing.
  return {
    v: 1,
    run,
    at: 1_000,
    agent: 'main',
    backend: 'claude',
    turns: 1,
    retries: 0,
    reminders: 0,
    costUsd: 0.01,
    tokens: 100,
    wallMs: 1_000,
    cpuMs: 10,
    outcome: 'goto',
    ...over,
  };
}

/** A run record with plain defaults. */
export function runRecord({
  run,
  ...over
}: Partial<RunRecord> & Pick<RunRecord, 'run'>): RunRecord {
  return {
    v: 1,
    run,
    workflow: 'wf',
    path: '/wf',
    fingerprint: 'f1',
    source: 'local',
    startedAt: 0,
    endedAt: 2_000,
    status: 'completed',
    costUsd: 0,
    steps: 0,
    agents: 1,
    maxLive: 1,
    ...over,
  };
}

/** JSON lines, each ended by a newline. */
export const jsonl = (records: readonly object[]): string =>
  records.map((r) => `${JSON.stringify(r)}\n`).join('');

/** A temporary project with a `.raymond/history/<key>/` folder; `remove()` deletes it. */
export function tempProject(key = 'wf-00000000') {
  const dir = mkdtempSync(join(tmpdir(), 'raymond-history-'));
  const keyDir = join(dir, '.raymond', 'history', key);
  mkdirSync(keyDir, { recursive: true });
  return {
    dir,
    key,
    steps: join(keyDir, 'steps.jsonl'),
    runs: join(keyDir, 'runs.jsonl'),
    index: join(keyDir, 'index.json'),
    write(file: 'steps' | 'runs', text: string): void {
      writeFileSync(join(keyDir, `${file}.jsonl`), text);
    },
    remove(): void {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
