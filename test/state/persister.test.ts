import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPersister } from '../../src/state/persister.js';
import { runFake } from '../helpers/fake-actors.js';
import type { WorkflowState } from '../../machines/types.js';


describe('persister', () => {
  it('coalesces state writes under fan-out, and the file ends complete', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'raymond-persist-'));
    const path = join(dir, 'wf.json');
    const stats = { writes: 0, bytes: 0, snapshots: 0 };
    const workers = Array.from({ length: 200 }, () => ({ target: 'W', attributes: {} }));
    const run = await runFake(
      { START: { kind: 'fork', next: 'END', workers }, W: { kind: 'result', payload: 'r' }, END: { kind: 'result', payload: 'x' } },
      { maxParallel: 50, persister: createPersister(path, stats) },
    );
    assert.equal(Object.keys(run.store.meta.results).length, 201);
    // 202 versions are produced (start + 201 steps + final status); one write each would be 202.
    assert.ok(stats.writes < 150, `writes: ${stats.writes}`);
    assert.equal(stats.snapshots, 2, 'a snapshot at the start and one at the end; journal lines between');
    assert.equal(existsSync(path.replace(/\.json$/, '.journal')), false, 'the journal is folded in at the end');
    const onDisk = JSON.parse(readFileSync(path, 'utf8')) as WorkflowState;
    assert.equal(onDisk.status, 'completed');
    assert.equal(Object.keys(onDisk.results).length, 201);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a final snapshot that cannot be written costs a warning: the journal already holds the completed run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'raymond-persist-'));
    const path = join(dir, 'wf.json');
    const warnings: string[] = [];
    const run = await runFake(
      {
        START: () => {
          // The first snapshot is on disk; from now on no snapshot can replace it.
          rmSync(path);
          mkdirSync(path);
          return { kind: 'goto', target: 'END' };
        },
        END: { kind: 'result', payload: 'done' },
      },
      { persister: createPersister(path, undefined, (text) => warnings.push(text)) },
    );
    assert.equal(run.output.status, 'completed');
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0]!, /wf\.json: cannot compact the state file .*its journal keeps every step/);
    const lines = readFileSync(join(dir, 'wf.journal'), 'utf8').trim().split('\n');
    const last = JSON.parse(lines.at(-1)!) as { meta: { status: string }; results?: Record<string, string> };
    assert.equal(last.meta.status, 'completed', 'the disk says what the run says');
    rmSync(dir, { recursive: true, force: true });
  });
});
