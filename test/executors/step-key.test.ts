import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scriptEnvironment } from '../../src/executors/script-executor.js';
import { stepKey } from '../../src/executors/step-key.js';

describe('stepKey', () => {
  it('names one step of one agent of one run: the same for a re-run, another for the next step, agent or run', () => {
    const k = stepKey('run-1', { id: 'main_w1', steps: 2 });
    assert.match(k, /^[0-9a-f]{32}$/);
    assert.equal(stepKey('run-1', { id: 'main_w1', steps: 2 }), k);
    assert.notEqual(stepKey('run-1', { id: 'main_w1', steps: 3 }), k);
    assert.notEqual(stepKey('run-1', { id: 'main_w2', steps: 2 }), k);
    assert.notEqual(stepKey('run-2', { id: 'main_w1', steps: 2 }), k);
    assert.equal(stepKey('r', { id: 'main' }), stepKey('r', { id: 'main', steps: 0 }));
  });

  it("is in a script's environment, where no fork attribute can change it", () => {
    const agent = {
      id: 'main_w1',
      state: 'W.sh',
      session: null,
      branchFrom: null,
      cwd: '/',
      attributes: { RAYMOND_STEP_KEY: 'forged' },
      input: null,
      status: 'active' as const,
      stack: null,
      steps: 4,
    };
    const env = scriptEnvironment({ workflowId: 'run-1', agent });
    assert.equal(env.RAYMOND_STEP_KEY, stepKey('run-1', agent));
  });
});
