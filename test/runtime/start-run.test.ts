import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { RaymondError } from '../../src/errors.js';
import { resumeWorkflow, startWorkflow } from '../../src/runtime/start-run.js';
import { readStateFile } from '../../src/state/state-file.js';
import { fakeExecutor } from '../helpers/step-deps.js';
import { plainSettings, runProject } from '../helpers/run-world.js';

const FILES = {
  'START.md': 'Work, then <goto>END</goto>.',
  'END.md': 'Finish with <result>...</result>.',
};

describe('startWorkflow and resumeWorkflow', () => {
  let project: ReturnType<typeof runProject>;
  afterEach(() => project.remove());
  const code = (c: string, pattern: RegExp) => (err: unknown) =>
    err instanceof RaymondError && err.code === c && pattern.test(err.message);

  it('starts a run at the entry state with its input, stores its settings, and refuses the same id again', async () => {
    project = runProject(FILES);
    const markdown = fakeExecutor({
      'START.md': [{ output: '<goto>END</goto>', session: 's1' }],
      'END.md': [{ output: '<result>done</result>', session: 's1' }],
    });
    const req = {
      path: project.wf,
      cwd: project.dir,
      stateDir: project.stateDir,
      workflowId: 'r1',
      input: 'the task',
      settings: plainSettings({ name: 'nightly' }),
      onEvent: () => {},
      markdown,
      language: 'inline' as const,
    };
    const outcome = await startWorkflow(req);
    assert.equal(outcome.status, 'completed');
    assert.deepEqual(outcome.results, { main: 'done' });
    assert.equal(markdown.requests[0]!.agent.input, 'the task');
    assert.equal(markdown.requests[0]!.agent.cwd, project.dir);
    const state = await readStateFile(join(project.stateDir, 'r1.json'), 'r1');
    assert.equal(state.options.name, 'nightly');
    assert.equal(state.scope.entry, 'START.md');
    assert.ok(state.scope.fingerprints?.['START.md'], 'the states are fingerprinted for resumes');
    await assert.rejects(
      startWorkflow(req),
      code('ERR_WORKFLOW_ID', /a run with id "r1" already exists/),
    );
    await assert.rejects(
      resumeWorkflow({
        workflowId: 'r1',
        stateDir: project.stateDir,
        overrides: {},
        onEvent: () => {},
        markdown,
        language: 'inline',
      }),
      code('ERR_STATE_FILE', /run r1 has completed; nothing to resume/),
    );
  });

  it('resumes a paused run where it stopped, with the settings given again; a run it does not have is refused', async () => {
    project = runProject(FILES);
    const limit = new RaymondError('ERR_USAGE_LIMIT', 'usage limit reached', { details: {} });
    const markdown = fakeExecutor({
      'START.md': [{ output: '<goto>END</goto>', session: 's1' }],
      'END.md': [limit, { output: '<result>later</result>', session: 's1' }],
    });
    const common = {
      stateDir: project.stateDir,
      onEvent: () => {},
      markdown,
      language: 'inline' as const,
    };
    const first = await startWorkflow({
      ...common,
      path: project.wf,
      cwd: project.dir,
      workflowId: 'r2',
      settings: plainSettings(),
    });
    assert.equal(first.status, 'paused');
    const events: string[] = [];
    const second = await resumeWorkflow({
      ...common,
      workflowId: 'r2',
      overrides: { name: 'again' },
      onEvent: (e) =>
        void events.push(e.type === 'run.started' ? `started resumed=${e.resumed}` : e.type),
    });
    assert.equal(second.status, 'completed');
    assert.deepEqual(second.results, { main: 'later' });
    assert.deepEqual(
      markdown.requests.map((r) => r.file),
      ['START.md', 'END.md', 'END.md'],
      'START.md did not run again',
    );
    assert.equal(events[0], 'started resumed=true');
    assert.equal(
      (await readStateFile(join(project.stateDir, 'r2.json'), 'r2')).options.name,
      'again',
    );
    await assert.rejects(
      resumeWorkflow({ ...common, workflowId: 'missing', overrides: {} }),
      (err: unknown) => err instanceof RaymondError && err.code === 'ERR_STATE_FILE',
    );
  });

  it('refuses to resume a run whose states were edited since it started, unless told to allow changes', async () => {
    project = runProject(FILES);
    const limit = new RaymondError('ERR_USAGE_LIMIT', 'usage limit reached', { details: {} });
    const markdown = fakeExecutor({
      'START.md': [limit, { output: '<result>edited</result>', session: 's1' }],
    });
    const common = {
      stateDir: project.stateDir,
      onEvent: () => {},
      markdown,
      language: 'inline' as const,
    };
    assert.equal(
      (
        await startWorkflow({
          ...common,
          path: project.wf,
          cwd: project.dir,
          workflowId: 'r3',
          settings: plainSettings(),
        })
      ).status,
      'paused',
    );
    writeFileSync(join(project.wf, 'START.md'), 'Now finish with <result>...</result>.');
    await assert.rejects(
      resumeWorkflow({ ...common, workflowId: 'r3', overrides: {} }),
      code('ERR_WORKFLOW_CHANGED', /START\.md was edited since run r3 started/),
    );
    const resumed = await resumeWorkflow({
      ...common,
      workflowId: 'r3',
      overrides: {},
      allowChanges: true,
    });
    assert.deepEqual(resumed.results, { main: 'edited' });
  });
});
