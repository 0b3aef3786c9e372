import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { StoredAgent } from '../../machines/types.js';
import { RaymondError } from '../../src/errors.js';
import {
  createTaskFolders,
  TASK_FOLDER_WORDS,
  withTaskFolders,
} from '../../src/runtime/task-folders.js';
import { projectRootOf } from '../../src/task-folder-pattern.js';
import { DEFAULT_TASK_FOLDER_PATTERN } from '../../src/task-folder-pattern.js';

describe('projectRootOf', () => {
  it('a state folder inside .raymond belongs to the folder holding .raymond, serve-state included', () => {
    assert.equal(projectRootOf('/p/.raymond/state/r.json'), '/p');
    assert.equal(projectRootOf('/p/.raymond/serve-state/r.json'), '/p');
  });

  it('any other state folder, one named state included, belongs to the folder holding it', () => {
    assert.equal(projectRootOf('/p/runs/state/r.json'), '/p/runs');
    assert.equal(projectRootOf('/tmp/x/state/r.json'), '/tmp/x');
    assert.equal(projectRootOf('/p/st/r.json'), '/p');
  });

  it('only a parent named exactly .raymond counts', () => {
    assert.equal(projectRootOf('/p/raymond/state/r.json'), '/p/raymond');
    assert.equal(projectRootOf('/p/.raymond-old/state/r.json'), '/p/.raymond-old');
  });
});

describe('createTaskFolders', () => {
  const root = mkdtempSync(join(tmpdir(), 'raymond-tasks-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const folders = createTaskFolders(root, DEFAULT_TASK_FOLDER_PATTERN, 'run1');

  it("lays an agent's folders out by the pattern: its first, then .2, .3...; an agent keeps the one it was given", () => {
    assert.equal(folders.path('main', 1), join(root, '.raymond/tasks/run1/main'));
    assert.equal(folders.path('main', 3), join(root, '.raymond/tasks/run1/main.3'));
    assert.equal(folders.of({ id: 'w1' }), join(root, '.raymond/tasks/run1/w1'));
    assert.equal(folders.of({ id: 'w1', task_folder: '/elsewhere' }), '/elsewhere');
  });

  it('makes a folder with its parents, and says which folder it cannot make for which state', async () => {
    await folders.ensure(folders.path('main', 1), 'START.sh');
    assert.ok(statSync(folders.path('main', 1)).isDirectory());
    writeFileSync(join(root, 'file'), '');
    await assert.rejects(
      folders.ensure(join(root, 'file/sub'), 'START.sh'),
      (err: unknown) =>
        err instanceof RaymondError &&
        err.code === 'ERR_TASK_FOLDER' &&
        err.file === 'START.sh' &&
        err.message.startsWith(`cannot make the task folder ${join(root, 'file/sub')}: `),
    );
  });

  it("records the default folder of agents from state files written before task folders, and keeps the others'", () => {
    const agent = (id: string, task_folder?: string): StoredAgent => ({
      id,
      state: 'A.sh',
      session: null,
      branchFrom: null,
      stack: [],
      cwd: '/w',
      attributes: {},
      input: null,
      status: 'active',
      ...(task_folder ? { task_folder } : {}),
    });
    const out = withTaskFolders([agent('main'), agent('w1', '/kept')], folders);
    assert.deepEqual(
      out.map((a) => a.task_folder),
      [join(root, '.raymond/tasks/run1/main'), '/kept'],
    );
  });

  it('asks a workflow once whether it names task folders, with the words of the rule', async () => {
    const asked: (readonly string[])[] = [];
    const scope = {
      mentions: async (words: readonly string[]) => (asked.push(words), false),
    };
    const other = { mentions: async () => true };
    assert.equal(await folders.usedBy(scope), false);
    assert.equal(await folders.usedBy(scope), false);
    assert.equal(await folders.usedBy(other), true, 'each workflow is decided on its own files');
    assert.deepEqual(asked, [TASK_FOLDER_WORDS]);
    assert.deepEqual(
      [...TASK_FOLDER_WORDS],
      ['task_folder', 'TASK_FOLDER', 'task=', 'display_files', 'upload_'],
    );
  });
});
