import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { historyKey } from '../../src/history/history-paths.js';
import { readRunHistory, runCostsOf } from '../../src/history/run-steps.js';
import { jsonl, runRecord, stepRecord, tempProject } from '../helpers/history-records.js';

let project: ReturnType<typeof tempProject>;
afterEach(() => project?.remove());

describe('readRunHistory', () => {
  it("finds a run's steps and its last run record in whichever workflow holds it, not a run whose id it begins", async () => {
    project = tempProject('a-00000000');
    project.write(
      'steps',
      jsonl([
        stepRecord({ run: 'r1', state: 'A.md', costUsd: 0.1 }),
        stepRecord({ run: 'r10', state: 'A.md', costUsd: 9 }),
        stepRecord({ run: 'r1', state: 'B.md', costUsd: 0.2 }),
      ]) + '{"v":1,"run":"r1","at":5,"ag',
    );
    project.write(
      'runs',
      jsonl([
        runRecord({ run: 'r1', status: 'paused', steps: 1 }),
        runRecord({ run: 'r1', status: 'completed', steps: 1 }),
      ]),
    );
    const other = join(project.dir, '.raymond', 'history', 'b-00000000');
    mkdirSync(other);
    writeFileSync(join(other, 'steps.jsonl'), jsonl([stepRecord({ run: 'r2', state: 'X.md' })]));
    const r1 = await readRunHistory(project.dir, 'r1');
    assert.equal(r1!.key, 'a-00000000');
    assert.deepEqual(
      r1!.steps.map((s) => [s.state, s.costUsd]),
      [
        ['A.md', 0.1],
        ['B.md', 0.2],
      ],
    );
    assert.equal(r1!.record!.status, 'completed');
    const r2 = await readRunHistory(project.dir, 'r2');
    assert.deepEqual([r2!.key, r2!.steps.length, r2!.record], ['b-00000000', 1, undefined]);
    assert.equal(await readRunHistory(project.dir, 'r2', 'a-00000000'), undefined);
    assert.equal(await readRunHistory(project.dir, 'r'), undefined);
  });

  it("runCostsOf: a run's cost tables from its workflow's history, none when it has no steps there", async () => {
    const scope = { kind: 'dir', path: '/p/wf' };
    project = tempProject(historyKey(scope));
    project.write(
      'steps',
      jsonl([
        stepRecord({ run: 'r1', state: 'A.md', costUsd: 0.25 }),
        stepRecord({ run: 'r1', state: 'A.md', agent: 'w', costUsd: 0.75 }),
      ]),
    );
    const c = await runCostsOf(project.dir, 'r1', scope);
    assert.deepEqual(
      c!.byState.map((r) => [r.name, r.steps, r.costUsd, r.share]),
      [['A.md', 2, 1, 1]],
    );
    assert.deepEqual(
      c!.byAgent.map((r) => [r.name, r.share]),
      [
        ['w', 0.75],
        ['main', 0.25],
      ],
    );
    assert.equal(await runCostsOf(project.dir, 'r2', scope), undefined);
    assert.equal(
      await runCostsOf(project.dir, 'r1', { kind: 'dir', path: '/elsewhere' }),
      undefined,
    );
  });
});
