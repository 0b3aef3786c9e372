import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_BUDGET_USD,
  DEFAULT_MAX_PARALLEL,
  QUEUE_MAX_PARALLEL,
} from '../../src/settings/run-setting-defaults.js';
import {
  flagOverrides,
  fromStoredOptions,
  givenFlags,
  resolveSettings,
  storedOptions,
} from '../../src/settings/setting-values.js';

const here = { queued: false, interactive: false };

describe('setting values', () => {
  it("reads commander's options as config values: --no-debug is no_debug = true, a flag not given is absent", () => {
    assert.deepEqual(
      givenFlags({
        debug: false,
        warm: true,
        maxParallel: 3,
        dangerouslySkipPermissions: true,
        input: 'x',
      }),
      { no_debug: true, max_parallel: 3, dangerously_skip_permissions: true },
    );
  });

  it('takes the flag, else the config, else the default; a default may depend on the queue or the terminal', () => {
    const run = resolveSettings({ budget: 2 }, { budget: 5, timeout: 1.5, name: 'n' }, here, [
      'run',
    ]);
    assert.equal(run.budgetUsd, 2);
    assert.equal(run.timeoutSeconds, 2);
    assert.equal(run.name, 'n');
    assert.equal(run.maxParallel, DEFAULT_MAX_PARALLEL);
    assert.equal(run.onAsk, 'reject');
    assert.ok(!('model' in run), 'no default: unset');
    assert.equal(
      resolveSettings({}, {}, { queued: true, interactive: true }, ['run']).maxParallel,
      QUEUE_MAX_PARALLEL,
    );
    assert.equal(
      resolveSettings({}, {}, { queued: false, interactive: true }, ['run']).onAsk,
      'prompt',
    );
    assert.deepEqual(resolveSettings({ no_debug: true }, {}, here, ['process']), {
      adaptiveWidth: true,
      debug: false,
      history: true,
      warm: true,
      disallowedTools: ['EnterPlanMode', 'ExitPlanMode', 'AskUserQuestion', 'NotebookEdit'],
    });
  });

  it('a resume takes back only the run settings given as flags', () => {
    assert.deepEqual(flagOverrides({ budget: 7, no_debug: true, verbose: true }), { budgetUsd: 7 });
  });

  it('stores the run settings under their state-file names and reads them back; old files get what they meant', () => {
    const run = resolveSettings({}, { budget: 3, model: 'haiku' }, here, ['run']);
    const stored = storedOptions(run);
    assert.deepEqual(stored, {
      max_parallel: DEFAULT_MAX_PARALLEL,
      timeout_seconds: 600,
      budget_usd: 3,
      worktrees: 'keep-ignored',
      task_folder_pattern: '.raymond/tasks/{workflow_id}/{agent_id}',
      on_ask: 'reject',
      model: 'haiku',
      effort: null,
      dangerously_skip_permissions: false,
    });
    assert.deepEqual(fromStoredOptions(stored), run);
    const old = fromStoredOptions({
      max_parallel: 2,
      timeout_seconds: 600,
      budget_usd: DEFAULT_BUDGET_USD,
      model: null,
      effort: null,
      dangerously_skip_permissions: false,
    });
    assert.deepEqual(
      [old.onAsk, old.worktreeMode, old.model, old.budgetHard],
      ['reject', 'keep-ignored', undefined, undefined],
    );
  });
});
