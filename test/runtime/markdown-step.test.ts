import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { RaymondError, type SpentDetails } from '../../src/errors.js';
import type { StateExecutor } from '../../src/executors/executor.js';
import { BudgetMeter } from '../../src/runtime/budget-meter.js';
import { runMarkdownStep } from '../../src/runtime/markdown-step.js';
import { fakeExecutor, stepWorld, type StepWorld } from '../helpers/step-deps.js';

const STATES = {
  'START.md': 'Work on {{input}}, then <goto>NEXT</goto>.',
  'PICK.md':
    '---\nallowed_transitions:\n  - { tag: goto, target: NEXT }\n  - { tag: goto, target: OTHER }\n---\nPick one.',
  'NEXT.sh': '#!/bin/sh\n',
  'OTHER.sh': '#!/bin/sh\n',
};

const signal = new AbortController().signal;

describe('runMarkdownStep', () => {
  let w: StepWorld;
  afterEach(() => w.close());

  it('renders the prompt, runs one turn in the reserved session, and resolves its tag', async () => {
    w = await stepWorld(STATES);
    const markdown = fakeExecutor({
      'START.md': [
        { output: 'done <goto>NEXT</goto>', session: 's-1', costUsd: 0.25, sessionTotal: 1.5 },
      ],
    });
    const record = w.agent('START.md', { input: 'the parser', next_session: 'reserved-id' });
    const result = await runMarkdownStep(
      { ...w.deps, markdown },
      w.input(record),
      'START.md',
      signal,
    );
    assert.deepEqual(result.decision, { kind: 'goto', target: 'NEXT.sh', input: undefined });
    assert.equal(result.session, 's-1');
    assert.equal(result.costUsd, 0.25);
    assert.deepEqual(result.sessionCosts, { 's-1': 1.5 });
    const request = markdown.requests[0]!;
    assert.match(request.prompt!, /^Work on the parser, then <goto>NEXT<\/goto>\./);
    assert.deepEqual(request.session, { kind: 'fresh', id: 'reserved-id' });
    assert.deepEqual(markdown.ended, [], 'a goto keeps the session for the next state');
  });

  it('ends the session of a turn that gave a result', async () => {
    w = await stepWorld(STATES);
    const markdown = fakeExecutor({
      'START.md': [{ output: '<result>ok</result>', session: 's-2' }],
    });
    const result = await runMarkdownStep(
      { ...w.deps, markdown },
      w.input(w.agent('START.md')),
      'START.md',
      signal,
    );
    assert.equal(result.decision.kind, 'result');
    assert.deepEqual(markdown.ended, ['s-2']);
  });

  it("retries a failed turn from the state's session, counting what the failure cost", async () => {
    w = await stepWorld(STATES);
    const failed = new RaymondError('ERR_AGENT_FAILED', 'claude exited with code 1', {
      details: { costUsd: 0.1, session: 's-3', sessionTotal: 0.1 },
    });
    const markdown = fakeExecutor({
      'START.md': [
        failed,
        { output: '<goto>NEXT</goto>', session: 's-3', costUsd: 0.2, sessionTotal: 0.3 },
      ],
    });
    const result = await runMarkdownStep(
      { ...w.deps, markdown },
      w.input(w.agent('START.md', { session: 's-3' })),
      'START.md',
      signal,
    );
    assert.equal(result.costUsd, 0.30000000000000004);
    assert.deepEqual(
      markdown.requests.map((r) => r.session),
      [
        { kind: 'resume', session: 's-3' },
        { kind: 'resume', session: 's-3' },
      ],
    );
    assert.ok(
      w.events.some((e) => e.type === 'warning' && /retrying \(1\/3\)$/.test(e.text)),
      JSON.stringify(w.events),
    );
  });

  it('gives up at once on a usage limit, with what was spent attached for the supervisor to charge', async () => {
    w = await stepWorld(STATES);
    const limit = new RaymondError('ERR_USAGE_LIMIT', 'usage limit reached', {
      details: { costUsd: 0.4, session: 's-4', sessionTotal: 0.4 },
    });
    const markdown = fakeExecutor({ 'START.md': [limit] });
    const err = await runMarkdownStep(
      { ...w.deps, markdown },
      w.input(w.agent('START.md')),
      'START.md',
      signal,
    ).catch((e: unknown) => e);
    assert.ok(err instanceof RaymondError && err.code === 'ERR_USAGE_LIMIT');
    assert.equal((err.details as SpentDetails).spentUsd, 0.4);
    assert.deepEqual((err.details as SpentDetails).sessionCosts, { 's-4': 0.4 });
    assert.equal(markdown.requests.length, 1);
  });

  it('reminds a reply without a usable tag in the session it ran in, listing the allowed transitions', async () => {
    w = await stepWorld(STATES);
    const markdown = fakeExecutor({
      'PICK.md': [
        { output: 'I picked nothing', session: 's-5' },
        { output: '<goto>OTHER</goto>', session: 's-5' },
      ],
    });
    const result = await runMarkdownStep(
      { ...w.deps, markdown },
      w.input(w.agent('PICK.md')),
      'PICK.md',
      signal,
    );
    assert.deepEqual(result.decision, { kind: 'goto', target: 'OTHER.sh', input: undefined });
    assert.deepEqual(markdown.requests[1]!.session, { kind: 'resume', session: 's-5' });
    assert.match(markdown.requests[1]!.prompt!, /Reminder: your previous reply could not be used/);
    assert.ok(w.events.some((e) => e.type === 'warning' && /reminding \(1\/3\)$/.test(e.text)));
  });

  it('refuses a markdown state when the run has no agent executor', async () => {
    w = await stepWorld(STATES);
    await assert.rejects(
      runMarkdownStep(w.deps, w.input(w.agent('START.md')), 'START.md', signal),
      (err: unknown) =>
        err instanceof RaymondError &&
        err.code === 'ERR_STATE_UNSUPPORTED' &&
        err.file === 'START.md',
    );
  });
  it('--budget-hard: a turn the meter stops pauses its agent with ERR_BUDGET, charged what it streamed, its session named', async () => {
    w = await stepWorld(STATES);
    const meter = new BudgetMeter(1, 0.7);
    let spentSeen = 0;
    // A turn that streams two messages of $0.2 each, and ends as Claude Code's does when it is stopped.
    const markdown: StateExecutor = {
      async execute(req) {
        for (const soFar of [0.2, 0.4]) {
          if (req.signal.aborted) break;
          req.onSpend!(soFar);
          spentSeen = soFar;
        }
        assert.equal(req.signal.aborted, true, '$0.7 + $0.4 reaches the budget of $1');
        throw new RaymondError('ERR_AGENT_FAILED', 'stopped', {
          details: { costUsd: spentSeen, session: 's-9', sessionTotal: null },
        });
      },
    };
    const err = await runMarkdownStep(
      { ...w.deps, markdown, budgetMeter: meter },
      w.input(w.agent('START.md', { session: 's-9' })),
      'START.md',
      signal,
    ).catch((e: unknown) => e);
    assert.ok(err instanceof RaymondError && err.code === 'ERR_BUDGET', String(err));
    assert.equal(err.file, 'START.md');
    assert.match(
      err.message,
      /^stopped by --budget-hard: the run's cost reached its budget of \$1\.00/,
    );
    assert.equal((err.details as SpentDetails).spentUsd, 0.4);
    assert.equal(err.details.session, 's-9');
    assert.equal(err.details.costUsd, 0.4);
    assert.ok(!w.events.some((e) => e.type === 'warning' && /retrying/.test(e.text)), 'no retry');
  });

  it('a turn stopped by the run itself (Ctrl-C) is no budget stop, even with the meter on', async () => {
    w = await stepWorld(STATES);
    const run = new AbortController();
    const markdown: StateExecutor = {
      async execute(req) {
        req.onSpend!(2);
        run.abort();
        throw new RaymondError('ERR_AGENT_FAILED', 'stopped', { details: { costUsd: 2 } });
      },
    };
    const err = await runMarkdownStep(
      { ...w.deps, markdown, budgetMeter: new BudgetMeter(1, 0) },
      w.input(w.agent('START.md')),
      'START.md',
      run.signal,
    ).catch((e: unknown) => e);
    assert.ok(err instanceof RaymondError && err.code === 'ERR_AGENT_FAILED', String(err));
  });

  it("a state's budget: stops the visit's turn once it spent it, and the agent fails with the visit's figures", async () => {
    w = await stepWorld({
      ...STATES,
      'CAPPED.md': '---\nbudget: 0.3\n---\nWork, then <goto>NEXT</goto>.',
    });
    let messages = 0;
    const markdown: StateExecutor = {
      async execute(req) {
        for (const soFar of [0.2, 0.4, 0.6]) {
          if (req.signal.aborted) break;
          messages++;
          req.onSpend!(soFar);
        }
        assert.equal(req.signal.aborted, true, 'stopped at $0.40, past its $0.30');
        throw new RaymondError('ERR_AGENT_FAILED', 'stopped', {
          details: { costUsd: 0.4, session: 's-3', sessionTotal: null },
        });
      },
    };
    const err = await runMarkdownStep(
      { ...w.deps, markdown },
      w.input(w.agent('CAPPED.md')),
      'CAPPED.md',
      signal,
    ).catch((e: unknown) => e);
    assert.ok(err instanceof RaymondError && err.code === 'ERR_BRANCH_BUDGET', String(err));
    assert.equal(
      err.message,
      "budget: this state's budget of $0.30 a visit is spent ($0.40); no further turn was started",
    );
    assert.equal(messages, 2);
    assert.equal((err.details as SpentDetails).spentUsd, 0.4);
    assert.equal(err.details.session, 's-3');
  });

  it('a state with no budget: tells no one its spend (Codex reads its rollout only for a watcher)', async () => {
    w = await stepWorld(STATES);
    let told: unknown;
    const markdown: StateExecutor = {
      async execute(req) {
        told = req.onSpend;
        return { output: '<goto>NEXT</goto>', session: 's', costUsd: 0.1 };
      },
    };
    await runMarkdownStep(
      { ...w.deps, markdown },
      w.input(w.agent('START.md')),
      'START.md',
      signal,
    );
    assert.equal(told, undefined);
  });
});
