import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterEach, describe, it } from 'node:test';
import type { WorkflowState } from '../../machines/types.js';
import { historyFiles, historyKey, historyRoot } from '../../src/history/history-paths.js';
import { rebuildHistory } from '../../src/history/history-rebuild.js';
import { readWorkflowHistory } from '../../src/history/history-store.js';
import type { RunRecord, StepRecord } from '../../src/history/history-types.js';
import { freshState } from '../helpers/fake-actors.js';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

/** A finished run's state file and its transitions.log: main goes START -> B, forks W, a worker fails. */
function writeRun(
  project: string,
  id: string,
  opts: { queue?: boolean; log?: boolean; folder?: string } = {},
) {
  const state: WorkflowState = {
    ...freshState('START.md'),
    workflow_id: id,
    status: 'completed',
    scope: { kind: 'dir', path: '/p/review', entry: 'START.md' },
    started_at: at(0),
    updated_at: at(9_000),
    total_cost_usd: 0.035,
  };
  if (opts.queue) state.options = { ...state.options, queue: 'redis://x' };
  const stateDir = join(project, '.raymond', opts.folder ?? 'state');
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(join(stateDir, `${id}.json`), JSON.stringify(state));
  if (opts.log === false) return;
  const debug = join(project, '.raymond', 'debug', id);
  mkdirSync(debug, { recursive: true });
  writeFileSync(
    join(debug, 'transitions.log'),
    [
      `${at(0)} input: hello`,
      `${at(2_000)} [main] START.md -> B.md (goto) cost=$0.010000 total=$0.010000 session=s1 depth=0`,
      `${at(5_000)} [main] B.md -> W.md (fork) cost=$0.020000 total=$0.030000 session=s1 depth=0`,
      `${at(6_000)} [main_W1] W.md failed: the agent CLI exited 1`,
      `${at(7_500)} [main] C.sh -> (terminated) (result) cost=$0.005000 total=$0.035000 session=- depth=0`,
      '',
    ].join('\n'),
  );
}

const lines = <T>(path: string): T[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);

describe('rebuildHistory', () => {
  it("makes step records from transitions.log (a worker's first step timed from its parent's fork) and a run record from the state file", async () => {
    dir = mkdtempSync(join(tmpdir(), 'raymond-rebuild-'));
    writeRun(dir, 'r1');
    writeRun(dir, 'r2', { queue: true, log: false });
    writeRun(dir, 'r3', { folder: 'serve-state', log: false });
    assert.equal(await rebuildHistory(dir), 3);
    const key = historyKey({ kind: 'dir', path: '/p/review' });
    const files = historyFiles(historyRoot(dir), key);
    const steps = lines<StepRecord>(files.steps);
    assert.deepEqual(
      steps.map((s) => [s.agent, s.state, s.backend, s.turns, s.costUsd, s.wallMs, s.outcome]),
      [
        ['main', 'START.md', 'claude', 1, 0.01, 2_000, 'goto'],
        ['main', 'B.md', 'claude', 1, 0.02, 3_000, 'fork'],
        ['main_W1', 'W.md', 'claude', 1, 0, 1_000, 'failed'],
        ['main', 'C.sh', 'script', 0, 0.005, 2_500, 'result'],
      ],
    );
    assert.ok(steps.every((s) => s.rebuilt && s.run === 'r1' && s.tokens === 0 && s.cpuMs === 0));
    const runs = lines<RunRecord>(files.runs);
    assert.deepEqual(
      runs.map((r) => [r.run, r.source, r.status, r.costUsd, r.steps, r.workflow, r.rebuilt]),
      [
        ['r1', 'local', 'completed', 0.035, 4, 'review', true],
        ['r2', 'queued', 'completed', 0.035, 0, 'review', true],
        ['r3', 'served', 'completed', 0.035, 0, 'review', true],
      ],
    );
    const h = await readWorkflowHistory(dir, key);
    assert.deepEqual(h!.states['B.md']!.visits, [1]);
    assert.equal(h!.runs.length, 3);
  });

  it('two rebuilds at once do not write the history twice', async () => {
    dir = mkdtempSync(join(tmpdir(), 'raymond-rebuild-'));
    writeRun(dir, 'r1');
    await Promise.all([rebuildHistory(dir), rebuildHistory(dir), rebuildHistory(dir)]);
    const files = historyFiles(historyRoot(dir), historyKey({ kind: 'dir', path: '/p/review' }));
    assert.equal(lines(files.steps).length, 4);
    assert.equal(lines(files.runs).length, 1);
    assert.deepEqual(
      readdirSync(join(dir, '.raymond')).sort(),
      ['debug', 'history', 'state'],
      'no folder left aside',
    );
  });

  it('two processes that rebuild at once write it once: one rename wins, the other drops its copy', async () => {
    dir = mkdtempSync(join(tmpdir(), 'raymond-rebuild-'));
    for (let i = 0; i < 20; i++) writeRun(dir, `r${i}`);
    const source = fileURLToPath(new URL('../../src/history/history-rebuild.ts', import.meta.url));
    const script = `import { rebuildHistory } from ${JSON.stringify(source)}; await rebuildHistory(${JSON.stringify(dir)});`;
    const runs = await Promise.all(
      [1, 2, 3].map(() =>
        execa(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
          reject: false,
        }),
      ),
    );
    for (const r of runs) assert.equal(r.exitCode, 0, r.stderr);
    const files = historyFiles(historyRoot(dir), historyKey({ kind: 'dir', path: '/p/review' }));
    assert.equal(lines(files.steps).length, 80);
    assert.equal(lines(files.runs).length, 20);
    assert.deepEqual(readdirSync(join(dir, '.raymond')).sort(), ['debug', 'history', 'state']);
  });

  it('a folder a killed rebuild left aside is not added to the next one', async () => {
    dir = mkdtempSync(join(tmpdir(), 'raymond-rebuild-'));
    writeRun(dir, 'r1');
    await rebuildHistory(dir);
    const key = historyKey({ kind: 'dir', path: '/p/review' });
    const aside = `${historyRoot(dir)}.rebuild-${process.pid}`;
    // What a rebuild killed before its rename leaves (the same process id may come again).
    mkdirSync(join(aside, key), { recursive: true });
    writeFileSync(
      join(aside, key, 'runs.jsonl'),
      readFileSync(historyFiles(historyRoot(dir), key).runs),
    );
    rmSync(historyRoot(dir), { recursive: true });
    await rebuildHistory(dir);
    assert.equal(lines(historyFiles(historyRoot(dir), key).runs).length, 1);
  });

  it('finds nothing without state files, and skips a damaged one', async () => {
    dir = mkdtempSync(join(tmpdir(), 'raymond-rebuild-'));
    assert.equal(await rebuildHistory(dir), 0);
    writeRun(dir, 'r1');
    writeFileSync(join(dir, '.raymond', 'state', 'bad.json'), '{"version":1,');
    assert.equal(await rebuildHistory(dir), 1);
  });
});
