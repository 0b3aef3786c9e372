import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scriptEnvironment } from '../../src/executors/script-executor.js';
import { freshState } from '../helpers/fake-actors.js';

describe('script environment', () => {
  it('gives the agent its identity, input and attributes, and unsets what it has not', () => {
    const agent = {
      ...freshState().agents[0]!,
      id: 'main_w1',
      input: 'hello',
      attributes: { item: 'a.ts' },
    };
    const env = scriptEnvironment({ workflowId: 'wf', agent });
    assert.equal(env.RAYMOND_WORKFLOW_ID, 'wf');
    assert.equal(env.RAYMOND_AGENT_ID, 'main_w1');
    assert.equal(env.RAYMOND_INPUT, 'hello');
    assert.equal(env.RAYMOND_RESULT, 'hello');
    assert.equal(env.item, 'a.ts');
    assert.ok(
      'RAYMOND_WORKTREE' in env && env.RAYMOND_WORKTREE === undefined,
      'unset, not inherited',
    );
    const none = scriptEnvironment({ workflowId: 'wf', agent: { ...agent, input: null } });
    assert.ok('RAYMOND_INPUT' in none && none.RAYMOND_INPUT === undefined);
  });

  it('keeps attribute names a shell, loader or runtime reads out, and the RAYMOND_ variables its own', () => {
    const attributes = {
      item: 'x',
      BASH_ENV: '/p.sh',
      LD_PRELOAD: '/p.so',
      PATH: '/nowhere',
      NODE_OPTIONS: '--require /p.js',
      RAYMOND_AGENT_ID: 'forged',
      RAYMOND_WORKTREE: '/forged',
    };
    const env = scriptEnvironment(
      { workflowId: 'wf', agent: { ...freshState().agents[0]!, id: 'main_w1', attributes } },
      'linux',
    );
    for (const name of ['BASH_ENV', 'LD_PRELOAD', 'PATH', 'NODE_OPTIONS'])
      assert.equal(Object.hasOwn(env, name), false, name);
    assert.equal(env.item, 'x');
    assert.equal(env.RAYMOND_ATTR_BASH_ENV, '/p.sh');
    assert.equal(env.RAYMOND_AGENT_ID, 'main_w1');
    assert.ok(Object.hasOwn(env, 'RAYMOND_WORKTREE') && env.RAYMOND_WORKTREE === undefined);
  });
});
