import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  fromOptions,
  resumeQueue,
  toOptions,
  workerSlots,
  type RunSettings,
} from '../../src/settings/run-settings.js';

describe('resumeQueue', () => {
  const own = { url: 'redis://10.0.0.1:6379', pushRemote: 'origin' };

  it("keeps the run's own queue when nothing is given again", () => {
    assert.deepEqual(resumeQueue(own, undefined), own);
    assert.equal(resumeQueue(undefined, undefined), undefined);
  });

  it("applies a secret file or push remote given alone to the run's own URL", () => {
    assert.deepEqual(resumeQueue(own, { secretFile: '/s/secret' }), {
      ...own,
      secretFile: '/s/secret',
    });
    assert.deepEqual(resumeQueue(own, { pushRemote: 'backup' }), {
      url: own.url,
      pushRemote: 'backup',
    });
  });

  it('takes a URL given again, with its companions', () => {
    assert.deepEqual(resumeQueue(own, { url: 'redis://10.0.0.2:6379', secretFile: 'f' }), {
      url: 'redis://10.0.0.2:6379',
      secretFile: 'f',
      pushRemote: 'origin',
    });
  });

  it('gives a run on one machine no queue for companions alone', () => {
    assert.equal(resumeQueue(undefined, { secretFile: '/s/secret' }), undefined);
  });
});

describe('toOptions and fromOptions', () => {
  const settings: RunSettings = {
    maxParallel: 3,
    timeoutSeconds: 30,
    budgetUsd: 2,
    budgetHard: true,
    skipPermissions: false,
    worktreeMode: 'off',
    taskFolderPattern: 't/{workflow_id}/{agent_id}',
    onAsk: 'pause',
    name: 'nightly',
    debug: true,
    history: true,
    adaptiveWidth: true,
    backendSettings: { warm: false, disallowedTools: [], claudeBin: '/bin/claude' },
    environment: { A: '1' },
    queue: { url: 'redis://u:secret@10.0.0.1:6379', pushRemote: 'backup', secretFile: '/s' },
  };

  it("stores the run's settings by their state-file names, the queue without its password, and nothing of this process", () => {
    assert.deepEqual(toOptions(settings), {
      max_parallel: 3,
      timeout_seconds: 30,
      budget_usd: 2,
      budget_hard: true,
      model: null,
      effort: null,
      dangerously_skip_permissions: false,
      worktrees: 'off',
      task_folder_pattern: 't/{workflow_id}/{agent_id}',
      on_ask: 'pause',
      name: 'nightly',
      environment: { A: '1' },
      queue: 'redis://u@10.0.0.1:6379',
      push_remote: 'backup',
    });
  });

  it('reads them back for a resume', () => {
    const back = fromOptions(toOptions(settings));
    assert.deepEqual(
      { ...back },
      {
        maxParallel: 3,
        timeoutSeconds: 30,
        budgetUsd: 2,
        budgetHard: true,
        skipPermissions: false,
        worktreeMode: 'off',
        taskFolderPattern: 't/{workflow_id}/{agent_id}',
        onAsk: 'pause',
        name: 'nightly',
        environment: { A: '1' },
        queue: { url: 'redis://u@10.0.0.1:6379', pushRemote: 'backup' },
      },
    );
  });
});

describe('workerSlots', () => {
  const MB = 2 ** 20;
  it('is a step per core on a machine with memory to spare (2 on 2 cores, not 76)', () => {
    assert.equal(workerSlots(2, 23 * 1024 * MB), 2);
    assert.equal(workerSlots(16, 23 * 1024 * MB), 16);
  });
  it('is one per 300 MB of free memory when that is fewer, and at least one', () => {
    assert.equal(workerSlots(16, 900 * MB), 3);
    assert.equal(workerSlots(4, 100 * MB), 1);
  });
});
