import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BackendRuntime } from '../../../src/agents/agent-backend.js';
import { backendExecutor } from '../../../src/agents/registry/backend-executor.js';
import { backendOf } from '../../../src/agents/registry/registry.js';
import type {
  BackendSpec,
  Execution,
  ExecutionRequest,
  StateExecutor,
} from '../../../src/executors/executor.js';

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

const RUNTIME: BackendRuntime = { skipPermissions: false, settings: {}, emit: () => {} };

/** A backendExecutor whose backends are the registry's with fake executors. */
function executorOf(executors: Record<string, StateExecutor>): StateExecutor {
  return backendExecutor(RUNTIME, (spec) => ({
    ...backendOf(spec),
    executor: () => executors[spec?.name ?? 'claude']!,
  }));
}

describe('backendExecutor', () => {
  it('hands each turn to its workflow backend, Claude Code when it has none', async () => {
    const claude = recorder('claude');
    const pi = recorder('pi');
    const ex = executorOf({ claude: claude.executor, pi: pi.executor });
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
    const ex = executorOf({ claude: recorder('claude').executor, pi });
    await assert.rejects(ex.execute(request({ name: 'pi', options: {} })), /pi broke/);
  });

  it('ends a session in every backend it made, whether or not it has endSession', async () => {
    const claude = recorder('claude');
    const pi = recorder('pi');
    const both = executorOf({ claude: claude.executor, pi: pi.executor });
    await both.execute(request());
    await both.execute(request({ name: 'pi', options: {} }));
    both.endSession!('s1');
    assert.deepEqual(claude.ended, ['s1']);
    assert.deepEqual(pi.ended, ['s1']);

    const silent = recorder('pi', false);
    const ex = executorOf({ claude: claude.executor, pi: silent.executor });
    await ex.execute(request());
    await ex.execute(request({ name: 'pi', options: {} }));
    assert.doesNotThrow(() => ex.endSession!('s2'));
    assert.deepEqual(claude.ended, ['s1', 's2']);
  });

  it('closes every backend executor it made, at the end of the run, whether or not it has close', async () => {
    let closed = 0;
    const claude: StateExecutor = { ...recorder('claude').executor, close: () => void closed++ };
    const ex = executorOf({ claude, pi: recorder('pi').executor });
    ex.close!();
    assert.equal(closed, 0, 'nothing made yet');
    await ex.execute(request());
    await ex.execute(request({ name: 'pi', options: {} }));
    assert.doesNotThrow(() => ex.close!());
    assert.equal(closed, 1);
  });

  it("makes a backend's executor once, when a turn first needs it, with the run's runtime", async () => {
    const made: string[] = [];
    const ex = backendExecutor(RUNTIME, (spec) => {
      const name = spec?.name ?? 'claude';
      return {
        ...backendOf(spec),
        executor(runtime) {
          assert.equal(runtime, RUNTIME);
          made.push(name);
          return recorder(name).executor;
        },
      };
    });
    assert.deepEqual(made, []);
    await ex.execute(request({ name: 'pi', options: {} }));
    await ex.execute(request({ name: 'pi', options: {} }));
    await ex.execute(request());
    assert.deepEqual(made, ['pi', 'claude']);
  });

  it("runs a backend's turns with its account's variables (the gate's address) over the run's own, once its width gives them", async () => {
    let env: BackendRuntime['env'];
    const width = {
      acquire: async () => {},
      release: () => {},
      limited: () => {},
      park: () => {},
      env: async () => ({ ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' }),
    };
    const runtime = { ...RUNTIME, env: { RUN: 'own' }, widthOf: () => width };
    const ex = backendExecutor(runtime, (spec) => ({
      ...backendOf(spec),
      executor(r) {
        env = r.env;
        return recorder('claude').executor;
      },
    }));
    await ex.execute(request());
    assert.deepEqual(env, { RUN: 'own', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' });
  });
});
