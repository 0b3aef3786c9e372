import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import type { RunEvent } from '../../machines/run-events.js';
import { HistoryWriter, type HistoryRun } from '../../src/history/history-writer.js';
import type { RunRecord, StepRecord } from '../../src/history/history-types.js';
import { runSoFar } from '../../src/history/run-so-far.js';
import { runRecord, stepRecord, tempProject } from '../helpers/history-records.js';

let project: ReturnType<typeof tempProject>;
afterEach(() => project?.remove());

function writer(warnings: string[] = [], more: Partial<HistoryRun> = {}) {
  const run: HistoryRun = {
    root: join(project.dir, '.raymond', 'history'),
    key: project.key,
    run: 'r1',
    workflow: 'wf',
    path: '/wf',
    fingerprint: 'f1',
    source: 'served',
    startedAt: 5,
    live: 1,
    agents: 1,
    ...more,
  };
  return new HistoryWriter(run, (t) => warnings.push(t));
}

const measured = (
  agentId: string,
  state: string,
  costUsd: number,
  more: object = {},
): RunEvent => ({
  type: 'step.measured',
  agentId,
  state,
  backend: 'claude',
  turns: 1,
  retries: 0,
  reminders: 0,
  costUsd,
  tokens: 10,
  startedAt: 1_000,
  wallMs: 500,
  cpuMs: 3,
  outcome: 'goto',
  ...more,
});

const lines = <T>(path: string): T[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);

describe('HistoryWriter', () => {
  it('a step record per step.measured, and a run record with its workers at run.finished', () => {
    project = tempProject();
    const w = writer();
    w.event(measured('main', 'START.md', 0.1, { outcome: 'fork', width: 2, model: 'haiku' }));
    for (const id of ['main_W1', 'main_W2'])
      w.event({ type: 'agent.forked', parentId: 'main', id, state: 'W.md', attributes: {} });
    w.event(measured('main_W1', 'W.md', 0.2, { scope: 'lib-1' }));
    w.event(measured('main_W2', 'W.md', 0.4));
    w.event({
      type: 'run.finished',
      workflowId: 'r1',
      status: 'completed',
      totalCostUsd: 0.7,
      steps: 3,
      elapsedMs: 9,
    });
    w.close();
    const steps = lines<StepRecord>(project.steps);
    assert.deepEqual(steps[0], {
      v: 1,
      run: 'r1',
      at: 1_500,
      agent: 'main',
      state: 'START.md',
      backend: 'claude',
      turns: 1,
      retries: 0,
      reminders: 0,
      costUsd: 0.1,
      tokens: 10,
      wallMs: 500,
      cpuMs: 3,
      outcome: 'fork',
      model: 'haiku',
      width: 2,
    });
    assert.equal(steps[1]!.scope, 'lib-1');
    assert.equal(steps.length, 3);
    const [run] = lines<RunRecord>(project.runs);
    assert.deepEqual(
      { ...run, endedAt: 0 },
      {
        v: 1,
        run: 'r1',
        workflow: 'wf',
        path: '/wf',
        fingerprint: 'f1',
        source: 'served',
        startedAt: 5,
        agents: 3,
        endedAt: 0,
        status: 'completed',
        costUsd: 0.7,
        steps: 3,
        maxLive: 3,
        workers: { 'W.md': { count: 2, costUsd: 0.2 + 0.4 } },
      },
    );
  });

  it("a resumed run's record covers its earlier sessions: their steps, and their workers' costs", () => {
    project = tempProject();
    // Before a kill: main forked W1 at W.md (two steps there), and W1 is still live.
    const before = runSoFar(
      [
        stepRecord({ run: 'r1', agent: 'main', state: 'START.md', costUsd: 0.1 }),
        stepRecord({ run: 'r1', agent: 'main_W1', state: 'W.md', costUsd: 0.2 }),
        stepRecord({ run: 'r1', agent: 'main_W1', state: 'X.md', costUsd: 0.3 }),
      ],
      undefined,
      new Set(['main_W1']),
    );
    assert.deepEqual(
      [before.steps, [...before.workers]],
      [3, [['main_W1', { state: 'W.md', costUsd: 0.2 + 0.3 }]]],
    );
    const w = writer([], { live: 2, agents: 2, before });
    w.event(measured('main_W1', 'Y.md', 0.5));
    w.event({
      type: 'run.finished',
      workflowId: 'r1',
      status: 'completed',
      totalCostUsd: 1.1,
      steps: 1,
      elapsedMs: 9,
    });
    w.close();
    const [run] = lines<RunRecord>(project.runs);
    assert.equal(run!.steps, 4);
    assert.deepEqual(run!.workers, { 'W.md': { count: 1, costUsd: 0.2 + 0.3 + 0.5 } });
    assert.equal(
      runSoFar([], runRecord({ run: 'r1', maxLive: 7 }), new Set()).maxLive,
      7,
      'the most live at once, from the last record',
    );
  });

  it('a log a kill left mid-line gets a newline first, so the next record is a line of its own', () => {
    project = tempProject();
    writeFileSync(project.steps, '{"v":1,"run":"r0","at":1,"agent":"ma');
    writeFileSync(project.runs, '{"v":1,"run":"r0"}\n');
    const w = writer();
    w.event(measured('main', 'A.md', 0.1));
    w.close();
    const text = readFileSync(project.steps, 'utf8').split('\n');
    assert.equal(text[0], '{"v":1,"run":"r0","at":1,"agent":"ma');
    assert.equal((JSON.parse(text[1]!) as StepRecord).state, 'A.md');
    assert.equal(
      readFileSync(project.runs, 'utf8'),
      '{"v":1,"run":"r0"}\n',
      'a whole log is left alone',
    );
  });

  it('a history it cannot write is reported once and given up; the events go on', () => {
    project = tempProject();
    // A folder where the log should be: opening it to append fails.
    project.remove();
    writeFileSync(project.dir, 'not a folder');
    const warnings: string[] = [];
    const w = writer(warnings);
    w.event(measured('main', 'A.md', 0.1));
    w.close();
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0]!,
      /^the run history could not be written \(.+\); the run goes on without it$/,
    );
  });
});
