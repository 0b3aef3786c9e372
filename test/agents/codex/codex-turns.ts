import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RunEvent } from '../../../machines/run-events.js';
import type { BackendRuntime } from '../../../src/agents/agent-backend.js';
import { createCodexExecutor } from '../../../src/agents/codex/codex-executor.js';
import type { CodexOptions } from '../../../src/agents/codex/codex-options.js';
import { RaymondError } from '../../../src/errors.js';
import type { Execution, ExecutionRequest, SessionPlan } from '../../../src/executors/executor.js';
import type { ResolvedGrant } from '../../../src/executors/resolved-grant.js';
import { CODEX_TEST_MODEL, CodexSandbox } from '../../helpers/codex-sandbox.js';

/** The test model's price (USD per million tokens). */
const PRICE = { input: 2, cached_input: 0.5, output: 10 };
/** The scripted server's default turn (1,000 tokens in, 100 of them cached, 50 out) at PRICE. */
export const TURN_USD = (900 * 2 + 100 * 0.5 + 50 * 10) / 1e6;

/** Two amounts of USD that differ by rounding only. */
export const close = (a: number, b: number) => Math.abs(a - b) < 1e-9;

/** One turn as a test gives it; the rest of the request is the same for all. */
export interface Turn {
  prompt: string;
  session?: SessionPlan;
  costBase?: number;
  /** Absent: the test model; `undefined`: none (codex's default). */
  model?: string;
  effort?: string;
  grant?: ResolvedGrant;
  options?: CodexOptions;
  /** Absent: the sandbox's `work` folder. */
  cwd?: string;
  env?: Record<string, string>;
}

/**
 * Turns of the codex executor with the real codex against a scripted
 * Responses API: a sandbox with its own CODEX_HOME and HOME, a `work`
 * folder for the agent, the test model priced, every event kept.
 */
export class CodexTurns {
  readonly sb = new CodexSandbox();
  readonly work = join(this.sb.dir, 'work');
  readonly events: RunEvent[] = [];
  readonly runtime: BackendRuntime = {
    skipPermissions: false,
    settings: {},
    emit: (e) => this.events.push(e),
    env: this.sb.env(),
    prices: { [CODEX_TEST_MODEL]: PRICE },
  };

  async start(): Promise<this> {
    await this.sb.start();
    mkdirSync(this.work);
    return this;
  }

  stop(): Promise<void> {
    return this.sb.stop();
  }

  request(t: Turn): ExecutionRequest {
    return {
      workflowId: 'wf',
      agent: {
        id: 'main',
        state: 'S.md',
        session: null,
        branchFrom: null,
        cwd: t.cwd ?? this.work,
        attributes: {},
        input: null,
        status: 'active',
      },
      file: 'S.md',
      scope: { display: (f: string) => f, scriptPath: (f: string) => Promise.resolve(f) },
      // `codex` is not among the backend names yet: the registry adds it.
      backend: {
        name: 'codex',
        options: t.options ?? {},
      },
      prompt: t.prompt,
      session: t.session,
      costBase: t.costBase,
      model: 'model' in t ? t.model : CODEX_TEST_MODEL,
      effort: t.effort,
      grant: t.grant,
      signal: new AbortController().signal,
      timeoutMs: 60_000,
      env: t.env,
    };
  }

  /** Runs one turn with a new executor (of `runtime`, by default the sandbox's). */
  run(t: Turn, runtime = this.runtime): Promise<Execution> {
    return createCodexExecutor(runtime).execute(this.request(t));
  }

  /** Runs a turn that must fail, and gives its error. */
  async failure(t: Turn): Promise<RaymondError> {
    try {
      await this.run(t);
    } catch (err) {
      assert.ok(err instanceof RaymondError, String(err));
      return err;
    }
    assert.fail('the turn succeeded');
  }
}
