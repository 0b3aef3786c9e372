import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPersister } from '../../src/state/persister.js';
import { stackDepth, stackToArray } from '../../machines/frame-stack.js';
import { readStateFile } from '../../src/state/state-file.js';
import { agentIn, freshState, runFake } from '../helpers/fake-actors.js';
import type { AgentRecord, WorkflowState } from '../../machines/types.js';

describe('persister', () => {
  it('coalesces state writes under fan-out, and the file ends complete', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'raymond-persist-'));
    const path = join(dir, 'wf.json');
    const stats = { writes: 0, bytes: 0, snapshots: 0 };
    const workers = Array.from({ length: 200 }, () => ({ target: 'W', attributes: {} }));
    const run = await runFake(
      {
        START: { kind: 'fork', next: 'END', workers },
        W: { kind: 'result', payload: 'r' },
        END: { kind: 'result', payload: 'x' },
      },
      { maxParallel: 50, persister: createPersister(path, stats) },
    );
    assert.equal(Object.keys(run.store.meta.results).length, 201);
    // 202 versions are produced (start + 201 steps + final status); one write each would be 202.
    assert.ok(stats.writes < 150, `writes: ${stats.writes}`);
    assert.equal(
      stats.snapshots,
      2,
      'a snapshot at the start and one at the end; journal lines between',
    );
    assert.equal(
      existsSync(path.replace(/\.json$/, '.journal')),
      false,
      'the journal is folded in at the end',
    );
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
    assert.match(
      warnings[0]!,
      /wf\.json: cannot compact the state file .*its journal keeps every step/,
    );
    const lines = readFileSync(join(dir, 'wf.journal'), 'utf8').trim().split('\n');
    const last = JSON.parse(lines.at(-1)!) as {
      meta: { status: string };
      results?: Record<string, string>;
    };
    assert.equal(last.meta.status, 'completed', 'the disk says what the run says');
    rmSync(dir, { recursive: true, force: true });
  });

  it("journals the run's options only once the snapshot does not hold them as they are", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'raymond-persist-'));
    const path = join(dir, 'wf.json');
    let lines: string[] = [];
    const run = await runFake(
      {
        START: { kind: 'goto', target: 'MID' },
        MID: { kind: 'goto', target: 'END' },
        END: () => {
          lines = readFileSync(join(dir, 'wf.journal'), 'utf8').trim().split('\n');
          return { kind: 'result', payload: 'done' };
        },
      },
      { persister: createPersister(path) },
    );
    assert.equal(run.output.status, 'completed');
    assert.ok(lines.length >= 2, `lines: ${lines.length}`);
    for (const l of lines) assert.ok(!('options' in (JSON.parse(l) as { meta: object }).meta), l);
    assert.equal((await readStateFile(path, 'wf')).options.max_parallel, 2);
    rmSync(dir, { recursive: true, force: true });
  });

  it('journals a deep stack one frame per step: before every step the state file holds the agent exactly as the step gets it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'raymond-persist-'));
    const path = join(dir, 'wf.json');
    const stats = { writes: 0, bytes: 0, snapshots: 0 };
    // Resumed 100 frames deep: the first write is a snapshot, the lines after it change that stack.
    const state = freshState('START', {
      stack: Array.from({ length: 100 }, (_, i) => ({ state: 'BACK', session: `s${i}` })),
    });
    let checked = 0;
    const onDisk = async (r: AgentRecord) => {
      const main = agentIn(await readStateFile(path), 'main');
      assert.deepEqual(
        [main.state, main.input, main.stack],
        [r.state, r.input, stackToArray(r.stack)],
      );
      checked++;
    };
    const run = await runFake(
      {
        START: async (r) => (
          await onDisk(r),
          stackDepth(r.stack) < 200
            ? { kind: 'call', target: 'START', returnTo: 'BACK' }
            : { kind: 'result', payload: '0' }
        ),
        BACK: async (r) => (
          await onDisk(r),
          { kind: 'result', payload: String(Number(r.input) + 1) }
        ),
      },
      { state, persister: createPersister(path, stats), delayMs: 0 },
    );
    assert.equal(run.store.meta.results.main, '200');
    assert.equal(checked, 301);
    // A line holding the stack would be 5-10 KB here (100 to 200 frames).
    assert.ok(
      stats.bytes / stats.writes < 1000,
      `${Math.round(stats.bytes / stats.writes)} bytes per write`,
    );
    rmSync(dir, { recursive: true, force: true });
  });
});
