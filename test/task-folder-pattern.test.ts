import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_TASK_FOLDER_PATTERN,
  taskFolderPath,
  taskFolderPaths,
  taskFolderPatternProblem,
} from '../src/task-folder-pattern.js';

describe('taskFolderPath', () => {
  it('fills the default layout under the project root', () => {
    assert.equal(
      taskFolderPath('/p', DEFAULT_TASK_FOLDER_PATTERN, 'wf-1', 'main_w1', 1),
      '/p/.raymond/tasks/wf-1/main_w1',
    );
  });

  it("appends .N to the last part for the agent's later folders, after any trailing slash", () => {
    assert.equal(
      taskFolderPath('/p', 'out/{agent_id}@{workflow_id}/', 'wf', 'main', 2),
      '/p/out/main@wf.2',
    );
    assert.equal(
      taskFolderPath('/p', '{workflow_id}/{agent_id}/work', 'wf', 'main', 3),
      '/p/wf/main/work.3',
    );
  });
});

describe('taskFolderPaths', () => {
  it('gives what taskFolderPath gives, for every pattern, id and number', () => {
    const patterns = [
      DEFAULT_TASK_FOLDER_PATTERN,
      'out/{agent_id}@{workflow_id}/',
      '{workflow_id}/{agent_id}/work',
      './x//{workflow_id}/./{agent_id}-{agent_id}//',
    ];
    const ids = ['main', 'main_w1', 'main_w1_review12', '.', '..', 'a/b', 'a\\b', '.hidden'];
    for (const pattern of patterns) {
      const path = taskFolderPaths('/p/q', pattern, 'wf-1');
      for (const id of ids)
        for (const n of [1, 2, 7])
          assert.equal(
            path(id, n),
            taskFolderPath('/p/q', pattern, 'wf-1', id, n),
            `${pattern} ${id} ${n}`,
          );
    }
  });
});

describe('taskFolderPatternProblem', () => {
  it('accepts the default and other relative patterns with both placeholders', () => {
    for (const p of [
      DEFAULT_TASK_FOLDER_PATTERN,
      'tasks/{agent_id}-{workflow_id}',
      './x/{workflow_id}/{agent_id}/',
    ])
      assert.equal(taskFolderPatternProblem(p), undefined, p);
  });

  it('refuses patterns that are empty, escape the project, share folders or name unknown placeholders', () => {
    const cases: Array<[string, RegExp]> = [
      ['  ', /must not be empty/],
      ['../{workflow_id}/{agent_id}', /must not contain "\.\."/],
      ['a\\..\\{workflow_id}\\{agent_id}', /must not contain "\.\."/],
      ['/abs/{workflow_id}/{agent_id}', /must be relative/],
      ['C:/x/{workflow_id}/{agent_id}', /must be relative/],
      ['{workflow_id}', /must contain \{agent_id\}/],
      ['{agent_id}', /must contain \{workflow_id\}/],
      ['{workflow_id}/{agent_id}/{task}', /"\{task\}"; the only placeholders/],
      ['{workflow_id}/{agent_id}/{oops', /"\{oops"/],
      ['{workflow_id}/{agent_id}}', /"\}"/],
    ];
    for (const [p, why] of cases) assert.match(taskFolderPatternProblem(p) ?? 'accepted', why, p);
  });
});
