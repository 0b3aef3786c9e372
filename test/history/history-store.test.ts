import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { afterEach, describe, it } from 'node:test';
import type { HistoryIndex } from '../../src/history/history-fold.js';
import {
  historyKeys,
  readWorkflowHistory,
  skippedWarning,
} from '../../src/history/history-store.js';
import { jsonl, runRecord, stepRecord, tempProject } from '../helpers/history-records.js';

let project: ReturnType<typeof tempProject>;
afterEach(() => project?.remove());

/** Enough runs of two steps to pass the 64 KB after which the index is written back. */
function manyRuns(n: number, from = 0) {
  const steps = [];
  const runs = [];
  for (let i = from; i < from + n; i++) {
    steps.push(stepRecord({ run: `r${i}`, state: 'A.md', costUsd: 0.01 }));
    steps.push(stepRecord({ run: `r${i}`, state: 'B.md', costUsd: 0.02, outcome: 'result' }));
    runs.push(runRecord({ run: `r${i}`, steps: 2, costUsd: 0.03 }));
  }
  return { steps: jsonl(steps), runs: jsonl(runs) };
}

const index = (): HistoryIndex => JSON.parse(readFileSync(project.index, 'utf8')) as HistoryIndex;

describe('readWorkflowHistory', () => {
  it('folds the logs and, past 64 KB of new lines, writes the index back; the next read folds only the tail', async () => {
    project = tempProject();
    const first = manyRuns(300);
    project.write('steps', first.steps);
    project.write('runs', first.runs);
    const h = await readWorkflowHistory(project.dir, project.key);
    assert.equal(h!.runs.length, 300);
    assert.equal(h!.states['A.md']!.steps, 300);
    assert.ok(existsSync(project.index), 'index written back');
    assert.equal(index().stepsOffset, statSync(project.steps).size);
    assert.equal(index().runsOffset, statSync(project.runs).size);

    const more = manyRuns(2, 300);
    appendFileSync(project.steps, more.steps);
    appendFileSync(project.runs, more.runs);
    const again = await readWorkflowHistory(project.dir, project.key);
    assert.equal(again!.runs.length, 302);
    assert.equal(again!.states['B.md']!.steps, 302);
    assert.deepEqual(again!.states['B.md']!.visits.length, 302);
    // Small growth: the index is left as it was (the tail is cheap to fold again).
    assert.equal(index().runs.length, 300);
  });

  it('skips lines that are no record, {"v":1} and a run whose cost is text among them, and counts them', async () => {
    project = tempProject();
    project.write(
      'steps',
      jsonl([stepRecord({ run: 'r1', state: 'A.md', costUsd: 0.01 })]) + '{"v":1}\n',
    );
    project.write(
      'runs',
      '{"v":1}\n' +
        jsonl([runRecord({ run: 'r0', costUsd: 'x' as unknown as number })]) +
        jsonl([runRecord({ run: 'r1', steps: 1, costUsd: 0.01 })]),
    );
    const h = await readWorkflowHistory(project.dir, project.key);
    assert.deepEqual(
      h!.runs.map((r) => r.run),
      ['r1'],
    );
    assert.equal(h!.states['A.md']!.steps, 1);
    assert.equal(h!.skipped, 3);
    assert.match(
      skippedWarning(project.dir, h!)!,
      /: skipped 3 lines that are no valid history record$/,
    );
  });

  it('starts over when a log shrank below what the index read (it was pruned or replaced)', async () => {
    project = tempProject();
    const first = manyRuns(300);
    project.write('steps', first.steps);
    project.write('runs', first.runs);
    await readWorkflowHistory(project.dir, project.key);
    assert.ok(existsSync(project.index));
    const small = manyRuns(2, 1000);
    project.write('steps', small.steps);
    project.write('runs', small.runs);
    const h = await readWorkflowHistory(project.dir, project.key);
    assert.deepEqual(
      h!.runs.map((r) => r.run),
      ['r1000', 'r1001'],
    );
    assert.equal(h!.states['A.md']!.steps, 2);
  });

  it('leaves a half-written last line for a later read, and folds it once it is whole', async () => {
    project = tempProject();
    const whole = jsonl([stepRecord({ run: 'r1', state: 'A.md' })]);
    const last = JSON.stringify(stepRecord({ run: 'r1', state: 'B.md', outcome: 'result' }));
    project.write('steps', whole + last.slice(0, 20));
    project.write('runs', '');
    const h = await readWorkflowHistory(project.dir, project.key);
    assert.deepEqual(Object.keys(h!.states), ['A.md']);
    assert.equal((h as HistoryIndex).stepsOffset, Buffer.byteLength(whole));
    // The index is written back (here by hand, as a big read would) with its offset before the cut line.
    writeFileSync(project.index, JSON.stringify(h));
    appendFileSync(project.steps, `${last.slice(20)}\n`);
    const later = await readWorkflowHistory(project.dir, project.key);
    assert.deepEqual(Object.keys(later!.states).sort(), ['A.md', 'B.md']);
    assert.equal(later!.states['A.md']!.steps, 1, 'the first line is not folded twice');
  });

  it('skips a line a kill cut short in the middle of the log', async () => {
    project = tempProject();
    project.write(
      'steps',
      `${jsonl([stepRecord({ run: 'r1', state: 'A.md' })])}{"v":1,"run":"r1","st\n${jsonl([stepRecord({ run: 'r1', state: 'B.md' })])}`,
    );
    const h = await readWorkflowHistory(project.dir, project.key);
    assert.deepEqual(Object.keys(h!.states).sort(), ['A.md', 'B.md']);
  });

  it('ignores a damaged index, or one of another workflow, and folds the logs from their start', async () => {
    project = tempProject();
    const logs = manyRuns(3);
    project.write('steps', logs.steps);
    project.write('runs', logs.runs);
    for (const bad of [
      '{"v":1,"key":"wf-00000000","stepsOff',
      JSON.stringify({
        v: 1,
        key: 'other',
        stepsOffset: 99,
        runsOffset: 99,
        runs: [],
        states: {},
        workers: {},
        open: {},
      }),
    ]) {
      writeFileSync(project.index, bad);
      const h = await readWorkflowHistory(project.dir, project.key);
      assert.equal(h!.runs.length, 3);
      assert.equal(h!.states['A.md']!.steps, 3);
    }
  });

  it('has nothing for a workflow the history does not hold, and lists the ones it does', async () => {
    project = tempProject();
    assert.equal(await readWorkflowHistory(project.dir, 'other-12345678'), undefined);
    assert.deepEqual(historyKeys(project.dir), [project.key]);
  });
});
