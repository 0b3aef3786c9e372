import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { RunEvent } from '../../machines/run-events.js';
import { RaymondError, formatError } from '../errors.js';
import { startWorkflow } from '../runtime/start-run.js';
import type { RunSettings } from '../settings/run-settings.js';
import type { RunControl, RunOutcome } from '../runtime/run-types.js';
import { checkTest, type Divergence, type RunRecord } from './test-checks.js';
import { commitAll, testEnvironment } from './test-sandbox.js';
import { scratchPath } from './scratch-paths.js';
import { ScriptedModel, type StepLog } from './scripted-model.js';
import { byStem, pickEntry, scriptedMarkdown, stubbedScripts } from './scripted-steps.js';
import type { LoadedTest } from './test-file.js';
import { DEFAULT_TEST_TIMEOUT_SECONDS } from './test-spec-schema.js';
import { stateStem } from './test-file.js';

/** Every test's run id. */
export const TEST_RUN_ID = 'test';

/** How one test went. */
export interface TestResult {
  file: string;
  name: string;
  passed: boolean;
  /** The first way the run differed from the test, when it did. */
  divergence?: Divergence;
  costUsd: number;
  /** Every event of the run, in order (for coverage). */
  events: RunEvent[];
  /** Where the test's scratch folder was kept (`--keep`). */
  kept?: string;
}

/** What a test run is given besides the test. */
export interface RunTestOptions {
  /** The run's settings for this test (the CLI makes them from the test's `flags:`). */
  settings: RunSettings;
  /** Keep the scratch folder instead of removing it. */
  keep?: boolean;
  /** Aborted: stop the run now (Ctrl-C); the scratch folder still goes. */
  signal?: AbortSignal;
}

/** Puts the test's working directory in place: its `workdir` copied, then its `files` written (none through a link out of it). */
function seed(test: LoadedTest, work: string): void {
  mkdirSync(work, { recursive: true });
  if (test.spec.workdir)
    cpSync(resolve(dirname(test.file), test.spec.workdir), work, { recursive: true });
  for (const [name, content] of Object.entries(test.spec.files ?? {})) {
    const where = scratchPath(work, name);
    if (where.kind === 'outside')
      throw new RaymondError(
        'ERR_TEST_FILE',
        `files: ${name} leads outside the test's working directory through a symbolic link`,
        { file: test.file },
      );
    mkdirSync(dirname(where.path), { recursive: true });
    // After the folders are made: one of them may itself have been a link (checked above), never a new one.
    writeFileSync(where.path, content);
  }
  if (test.spec.git) commitAll(work);
}

/**
 * Runs one workflow test: a scratch folder and home of its own, the real
 * agent CLI against the scripted model on 127.0.0.1, script states real
 * unless stubbed, asks answered from the test; then checks the run.
 */
export async function runTest(test: LoadedTest, options: RunTestOptions): Promise<TestResult> {
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'raymond-test-')));
  const work = join(scratch, 'work');
  const home = join(scratch, 'home');
  const events: RunEvent[] = [];
  const steps = new Map<string, Array<{ state: string; token?: string; kind?: string }>>();
  const attributes = new Map<string, Record<string, string>>([['main', {}]]);
  const endings = new Map<string, string>();
  const kill = new AbortController();
  const running = new Set<Promise<unknown>>();
  const problems: Divergence[] = [];
  let control: RunControl | undefined;
  const model = new ScriptedModel((log: StepLog) => {
    problems.push({
      what: `no reply is scripted for ${log.ticket.state} turn ${log.ticket.turn} (agent ${log.ticket.agent})`,
      state: log.ticket.state,
      prompt: log.prompt ?? '',
    });
    kill.abort();
  });
  const answers = byStem(test.spec.answers);
  const asked = new Map<string, number>();
  const onEvent = (e: RunEvent) => {
    events.push(e);
    if (e.type === 'step.started') {
      const list = steps.get(e.agentId) ?? [];
      list.push({ state: stateStem(e.state) });
      steps.set(e.agentId, list);
    } else if (e.type === 'step.measured') {
      // The kind of transition the agent's latest step took, for `expect.paths` entries that name one.
      const last = steps.get(e.agentId)?.at(-1);
      if (last && last.kind === undefined) last.kind = e.outcome;
    } else if (e.type === 'agent.forked') attributes.set(e.id, e.attributes);
    else if (e.type === 'agent.failed' || e.type === 'agent.paused')
      endings.set(
        e.agentId,
        `${e.type === 'agent.failed' ? 'failed' : 'paused'}: ${e.failure.file ? `${e.failure.file}: ` : ''}${e.failure.message}`,
      );
    // Without `answers:`, the run stops at its first ask, as `--on-ask=pause` does.
    else if (e.type === 'ask.created' && test.spec.answers)
      answer(e.ask.agent_id, e.ask.id, e.ask.prompt);
  };
  const answer = (agentId: string, askId: string, question: string) => {
    const state = steps.get(agentId)?.at(-1)?.state ?? '?';
    const key = `${agentId}\0${state}`;
    const n = (asked.get(key) ?? 0) + 1;
    asked.set(key, n);
    const who = { id: agentId, attributes: attributes.get(agentId) ?? {} };
    const found = pickEntry(answers.get(state), who, n, (a) => (typeof a === 'string' ? {} : a));
    if (found === undefined) {
      problems.push({
        what: `${state} asked ${JSON.stringify(question)} (agent ${agentId}, ask ${n}) and the test has no answer for it`,
      });
      kill.abort();
      return;
    }
    const text = typeof found === 'string' ? found : found.text;
    // Answered once the supervisor is done with the event that announced the ask.
    setImmediate(() => control?.answer(askId, text));
  };
  let outcome: RunOutcome | undefined;
  let failure: string | undefined;
  const limit = test.spec.timeout ?? DEFAULT_TEST_TIMEOUT_SECONDS;
  // Stopping the run ends every step's process group (SIGTERM, then SIGKILL), as Ctrl-C does.
  const timer = setTimeout(() => {
    problems.push({ what: `the test ran past its time limit of ${limit} s (timeout:)` });
    kill.abort();
  }, limit * 1000);
  try {
    seed(test, work);
    mkdirSync(home, { recursive: true });
    mkdirSync(join(scratch, 'tmp'));
    await model.start();
    const env = testEnvironment({
      home,
      url: model.url,
      scratch,
      tmp: join(scratch, 'tmp'),
      own: test.spec.env,
    });
    // Scripts get the same closed environment: one that starts `claude` itself reaches the scripted model too.
    // An undefined value unsets the variable in the script's process (the spawner deletes it), not sets it empty.
    const scriptEnv = env as Record<string, string>;
    const settings: RunSettings = {
      ...options.settings,
      // With answers, the test answers every ask as a person at the terminal would; without, the run stops at the first.
      onAsk: test.spec.answers ? 'prompt' : 'pause',
      debug: false,
      history: false,
      environment: scriptEnv,
    };
    outcome = await startWorkflow({
      path: test.workflow,
      // A fixed id: the run's branches, task folders and worktrees have the same names in every run of the test.
      workflowId: TEST_RUN_ID,
      input: test.spec.input,
      cwd: work,
      stateDir: join(work, '.raymond', 'state'),
      settings,
      language: 'inline',
      kill: options.signal ? AbortSignal.any([kill.signal, options.signal]) : kill.signal,
      onEvent,
      onControl: (c) => (control = c),
      markdown: scriptedMarkdown({
        spec: test.spec,
        model,
        settings,
        env,
        emit: onEvent,
        running,
        onStep: (token, agent, state) => {
          const mine = steps
            .get(agent)
            ?.findLast((s) => s.state === state && s.token === undefined);
          if (mine) mine.token = token;
        },
      }),
      script: stubbedScripts(test.spec, running),
    });
  } catch (err) {
    failure = formatError(err);
  } finally {
    clearTimeout(timer);
    // A stopped run returns while its steps' processes end (SIGTERM, then SIGKILL): they may still write.
    await Promise.all(running);
    await model.stop();
  }
  try {
    return finish();
  } finally {
    // Whatever happened, even a check that threw: no scratch folder is left behind unless asked.
    if (!options.keep) rmSync(scratch, { recursive: true, force: true, maxRetries: 5 });
  }

  function finish(): TestResult {
    const record: RunRecord = {
      outcome,
      failure,
      problems,
      agents: [...attributes.keys()],
      endings,
      paths: new Map([...steps].map(([id, list]) => [id, list.map((s) => s.state)])),
      kinds: new Map([...steps].map(([id, list]) => [id, list.map((s) => s.kind)])),
      promptOf: (agent, index) => {
        const token = steps.get(agent)?.[index]?.token;
        return token === undefined ? undefined : (model.log(token)?.prompt ?? undefined);
      },
      work,
    };
    const divergence = checkTest(test.spec.expect ?? {}, record, (text) =>
      text.split(scratch).join('<scratch>'),
    );
    return {
      file: test.file,
      name: test.name,
      passed: divergence === undefined,
      ...(divergence ? { divergence } : {}),
      costUsd: outcome?.totalCostUsd ?? 0,
      events,
      ...(options.keep ? { kept: scratch } : {}),
    };
  }
}
