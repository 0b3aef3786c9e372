import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { afterEach, describe, it } from 'node:test';
import { pruneHistory } from '../../src/history/history-prune.js';
import { readWorkflowHistory } from '../../src/history/history-store.js';
import { jsonl, runRecord, stepRecord, tempProject } from '../helpers/history-records.js';

let project: ReturnType<typeof tempProject>;
afterEach(() => project?.remove());

const DAY = 86_400_000;
const NOW = 100 * DAY;

/** Three runs that ended 30, 10 and 1 days ago; the newest is still running (steps only). */
function threeRuns() {
  project = tempProject();
  const ends = { old: NOW - 30 * DAY, mid: NOW - 10 * DAY, new: NOW - DAY };
  project.write(
    'steps',
    jsonl([
      stepRecord({ run: 'old', state: 'A.md', at: ends.old }),
      stepRecord({ run: 'mid', state: 'A.md', at: ends.mid - 5 }),
      stepRecord({ run: 'new', state: 'A.md', at: ends.new }),
      stepRecord({ run: 'mid', state: 'B.md', at: ends.mid - 1 }),
    ]),
  );
  project.write(
    'runs',
    jsonl([
      runRecord({ run: 'old', endedAt: ends.old, steps: 1 }),
      runRecord({ run: 'mid', endedAt: ends.mid, steps: 2 }),
    ]),
  );
}

const runsIn = (path: string) =>
  [
    ...new Set(
      readFileSync(path, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { run: string }).run),
    ),
  ].sort();

describe('pruneHistory', () => {
  it('--keep N keeps the newest N runs of a workflow, by their latest record', async () => {
    threeRuns();
    const before = statSync(project.steps).size + statSync(project.runs).size;
    const r = await pruneHistory(project.dir, { keep: 2 }, NOW);
    assert.deepEqual(
      { ...r, bytesAfter: 0 },
      { workflows: 1, runsKept: 2, runsRemoved: 1, bytesBefore: before, bytesAfter: 0 },
    );
    assert.equal(r.bytesAfter, statSync(project.steps).size + statSync(project.runs).size);
    assert.deepEqual(runsIn(project.steps), ['mid', 'new']);
    assert.deepEqual(runsIn(project.runs), ['mid']);
  });

  it('--older-than removes the runs last seen before it; both bounds together keep the stricter', async () => {
    threeRuns();
    await pruneHistory(project.dir, { olderThanMs: 20 * DAY }, NOW);
    assert.deepEqual(runsIn(project.steps), ['mid', 'new']);
    await pruneHistory(project.dir, { keep: 5, olderThanMs: 5 * DAY }, NOW);
    assert.deepEqual(runsIn(project.steps), ['new']);
    assert.equal(readFileSync(project.runs, 'utf8'), '');
  });

  it('drops the index, so the next reader folds the shorter logs', async () => {
    threeRuns();
    writeFileSync(project.index, '{"v":1}');
    await pruneHistory(project.dir, { keep: 1 }, NOW);
    assert.ok(!existsSync(project.index));
    const h = await readWorkflowHistory(project.dir, project.key);
    assert.equal(h!.runs.length, 0);
    assert.equal(h!.states['A.md']!.steps, 1);
    assert.equal(h!.states['B.md'], undefined);
  });

  it('--keep 0 empties the logs; a history with no workflows is left as it is', async () => {
    threeRuns();
    const r = await pruneHistory(project.dir, { keep: 0 }, NOW);
    assert.equal(r.runsRemoved, 3);
    assert.equal(readFileSync(project.steps, 'utf8'), '');
    project.remove();
    project = tempProject();
    assert.equal((await pruneHistory(project.dir, { keep: 1 }, NOW)).runsRemoved, 0);
  });
});
