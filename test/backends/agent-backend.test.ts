import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backendExecutor, backendOf } from '../../src/backends/agent-backend.js';
import type { Execution, ExecutionRequest, StateExecutor } from '../../src/executors/executor.js';
import type { BackendSpec } from '../../src/scope/backend-spec.js';

describe('backendOf', () => {
  it('is Claude Code unless the workflow says pi', () => {
    assert.equal(backendOf(undefined).name, 'claude');
    assert.equal(backendOf({ name: 'claude' }).name, 'claude');
    assert.equal(backendOf({ name: 'pi', options: {} }).name, 'pi');
  });

  const claude = backendOf(undefined);
  const pi = backendOf({ name: 'pi', options: { thinking: 'low' } });

  for (const m of [
    'sonnet',
    'opus',
    'haiku',
    'claude-sonnet-4-5-20250929',
    'claude-opus-4-1',
    'claude-sonnet-4-5[1m]',
  ]) {
    it(`claude takes model ${m}`, () => assert.equal(claude.modelProblem(m), undefined));
  }
  for (const m of ['openai/gpt-5', 'gpt-5', 'Sonnet', 'claude-', '', 'sonnet ']) {
    it(`claude refuses model ${JSON.stringify(m)}`, () => {
      const problem = claude.modelProblem(m);
      assert.ok(problem?.includes(`"${m}"`), problem);
      assert.match(problem!, /opus, sonnet, haiku/);
    });
  }
  for (const e of ['low', 'medium', 'high']) {
    it(`claude takes effort ${e}`, () => assert.equal(claude.effortProblem(e), undefined));
  }
  for (const e of ['xhigh', 'off', 'minimal', 'max', '']) {
    it(`claude refuses effort ${JSON.stringify(e)}`, () => {
      const problem = claude.effortProblem(e);
      assert.ok(problem?.includes(`"${e}"`), problem);
      assert.match(problem!, /low, medium, high/);
    });
  }

  for (const m of [
    'openai/gpt-5',
    'mock-model',
    'anthropic/claude-sonnet-4-6',
    'sonnet',
    'openrouter/qwen/qwen3-coder:free',
  ]) {
    it(`pi takes model ${m}`, () => assert.equal(pi.modelProblem(m), undefined));
  }
  for (const m of ['openai/ gpt-5', 'gpt 5', '', '  ', 'gpt-5\n', '\tx']) {
    it(`pi refuses model ${JSON.stringify(m)}`, () => {
      const problem = pi.modelProblem(m);
      assert.ok(problem?.includes('not a pi model'), problem);
    });
  }
  for (const e of ['off', 'minimal', 'low', 'medium', 'high', 'xhigh']) {
    it(`pi takes effort ${e}`, () => assert.equal(pi.effortProblem(e), undefined));
  }
  for (const e of ['max', 'HIGH', '', 'none']) {
    it(`pi refuses effort ${JSON.stringify(e)}`, () => {
      const problem = pi.effortProblem(e);
      assert.ok(problem?.includes(`"${e}"`), problem);
      assert.match(problem!, /off, minimal, low, medium, high, xhigh/);
    });
  }
});

/** A StateExecutor that records what it is asked. */
function recorder(name: string, withEnd = true) {
  const executed: ExecutionRequest[] = [];
  const ended: string[] = [];
  const executor: StateExecutor = {
    execute: async (req) => {
      executed.push(req);
      return { output: `from ${name}`, session: `${name}-session`, costUsd: 0 } satisfies Execution;
    },
    ...(withEnd ? { endSession: (s: string) => void ended.push(s) } : {}),
  };
  return { executor, executed, ended };
}

const request = (backend?: BackendSpec): ExecutionRequest => ({
  workflowId: 'wf',
  agent: {} as ExecutionRequest['agent'],
  file: 'START.md',
  scope: { display: 'wf', scriptPath: () => undefined } as unknown as ExecutionRequest['scope'],
  backend,
  prompt: 'hi',
  signal: new AbortController().signal,
  timeoutMs: 1000,
});

describe('backendExecutor', () => {
  it('hands each turn to its workflow backend, Claude Code when it has none', async () => {
    const claude = recorder('claude');
    const pi = recorder('pi');
    const ex = backendExecutor({ claude: claude.executor, pi: pi.executor });
    const none = request();
    const toPi = request({ name: 'pi', options: {} });
    const toClaude = request({ name: 'claude' });
    assert.equal((await ex.execute(none)).output, 'from claude');
    assert.equal((await ex.execute(toPi)).output, 'from pi');
    assert.equal((await ex.execute(toClaude)).session, 'claude-session');
    assert.deepEqual(claude.executed, [none, toClaude]);
    assert.deepEqual(pi.executed, [toPi]);
    assert.equal(claude.executed[0], none, 'the request itself');
  });

  it('passes on a failure of the backend executor', async () => {
    const pi: StateExecutor = { execute: async () => Promise.reject(new Error('pi broke')) };
    const ex = backendExecutor({ claude: recorder('claude').executor, pi });
    await assert.rejects(ex.execute(request({ name: 'pi', options: {} })), /pi broke/);
  });

  it('ends a session in every backend, whether or not it has endSession', () => {
    const claude = recorder('claude');
    const pi = recorder('pi');
    backendExecutor({ claude: claude.executor, pi: pi.executor }).endSession!('s1');
    assert.deepEqual(claude.ended, ['s1']);
    assert.deepEqual(pi.ended, ['s1']);

    const silent = recorder('pi', false);
    const ex = backendExecutor({ claude: claude.executor, pi: silent.executor });
    assert.doesNotThrow(() => ex.endSession!('s2'));
    assert.deepEqual(claude.ended, ['s1', 's2']);
  });
});
