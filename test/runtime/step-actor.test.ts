import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import type { StepInput, StepResult } from '../../machines/agent.machine.js';
import type { StepFailure } from '../../machines/step-failure.js';
import type { StepDependencies } from '../../src/runtime/step-context.js';
import { createRunStep } from '../../src/runtime/step-actor.js';
import { fakeExecutor, stepWorld, type StepWorld } from '../helpers/step-deps.js';

/** Runs one step, as the step runner would. */
function runStep(deps: StepDependencies, input: StepInput): Promise<StepResult> {
  return createRunStep(deps)(input, new AbortController().signal);
}

describe('createRunStep (script states)', () => {
  let w: StepWorld;
  afterEach(() => w.close());

  it('runs the script, reads its tag, resolves the decision and reserves a session per agent', async () => {
    w = await stepWorld({
      'START.sh': '#!/bin/sh\n',
      'NEXT.sh': '#!/bin/sh\n',
      'W.sh': '#!/bin/sh\n',
    });
    const script = fakeExecutor({
      'START.sh': [{ output: 'hello\n<fork next="NEXT">W</fork>\n' }],
    });
    const result = await runStep({ ...w.deps, script }, w.input(w.agent('START.sh')));
    assert.equal(result.decision.kind, 'fork');
    assert.equal(result.decision.kind === 'fork' && result.decision.workers[0]!.id, 'main_w1');
    assert.equal(result.session, null);
    assert.equal(result.costUsd, 0);
    assert.equal(result.freshSessions?.length, 2, "the agent's own and one for its worker");
    assert.equal(script.requests[0]!.file, 'START.sh');
    assert.equal(script.requests[0]!.timeoutMs, 10_000);
    assert.ok(
      !existsSync(join(w.dir, '.raymond/tasks')),
      'a workflow whose files never name task folders gets none made',
    );
  });

  it('makes the task folder before the first step of a workflow whose files name it', async () => {
    w = await stepWorld({
      'START.sh': '#!/bin/sh\necho "<result>$(ls "$RAYMOND_TASK_FOLDER")</result>"\n',
    });
    const script = fakeExecutor({ 'START.sh': [{ output: '<result>ok</result>' }] });
    await runStep({ ...w.deps, script }, w.input(w.agent('START.sh')));
    assert.ok(
      existsSync(join(w.dir, '.raymond/tasks/wf-1/main')),
      "the agent's task folder is made before its first step",
    );
    assert.equal(script.requests[0]!.makeTaskFolder, true, 'and a queue worker is told to make it');
  });

  it('fails with the end of what the script printed when it gave no tag, as a StepFailure', async () => {
    w = await stepWorld({ 'START.sh': '#!/bin/sh\n' });
    const script = fakeExecutor({
      'START.sh': [{ output: 'working...\nno tag here\n' }, { output: '' }],
    });
    const failure = (await runStep({ ...w.deps, script }, w.input(w.agent('START.sh'))).catch(
      (e: unknown) => e,
    )) as StepFailure;
    assert.equal(failure.kind, 'step-failure');
    assert.equal(failure.code, 'ERR_TAG_MISSING');
    assert.match(failure.message, /its output ended with: working\.\.\. no tag here$/);
    const silent = (await runStep({ ...w.deps, script }, w.input(w.agent('START.sh'))).catch(
      (e: unknown) => e,
    )) as StepFailure;
    assert.match(silent.message, /; it printed nothing$/);
  });

  it('says when a cap cut the output, and hands an agent the worktree folder it got', async () => {
    w = await stepWorld({ 'START.sh': '#!/bin/sh\n' });
    const script = fakeExecutor({
      'START.sh': [{ output: '<result>ok</result>', droppedBytes: 5000 }],
    });
    w.pool.folder = '/pool/3';
    const worktree = {
      name: 'wt',
      repo: '/r',
      branch: 'raymond/wf-1/main',
      base: 'abc',
      mode: 'keep-ignored' as const,
    };
    const result = await runStep({ ...w.deps, script }, w.input(w.agent('START.sh', { worktree })));
    assert.deepEqual(result.acquired, {
      cwd: '/pool/3',
      worktree: { ...worktree, path: '/pool/3' },
    });
    assert.equal(script.requests[0]!.agent.cwd, '/pool/3', 'the step runs in the folder it got');
    assert.ok(
      w.events.some(
        (e) =>
          e.type === 'warning' &&
          /^\[main\] \S*START\.sh: output was cut: only the last /.test(e.text),
      ),
      JSON.stringify(w.events),
    );
    assert.deepEqual(result.decision, {
      kind: 'result',
      payload: 'ok',
      worktree: { ...worktree, path: '/pool/3', commits: 1, removed: false },
    });
    assert.deepEqual(w.pool.calls, ['acquire main', 'finish main']);
  });

  it("turns an error that is not Raymond's into a failure that halts the run", async () => {
    w = await stepWorld({ 'START.sh': '#!/bin/sh\n' });
    const script = fakeExecutor({ 'START.sh': [new Error('boom')] });
    const failure = (await runStep({ ...w.deps, script }, w.input(w.agent('START.sh'))).catch(
      (e: unknown) => e,
    )) as StepFailure;
    assert.deepEqual(
      [failure.code, failure.halts, failure.message],
      ['ERR_INTERNAL', true, 'boom'],
    );
  });
});
