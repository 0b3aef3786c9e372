import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AgentAsk } from '../../machines/types.js';
import { followRun } from '../../src/mcp/run-follower.js';
import { toolResult } from '../../src/mcp/run-report.js';
import { ServedRun } from '../../src/serve/served-run.js';

const ask = (id: string): AgentAsk => ({
  id,
  agent_id: 'main',
  prompt: `question ${id}?`,
  created_at: new Date(0).toISOString(),
  next: 'NEXT.md',
});

/** A run as the server follows it, fed by hand: no workflow runs. */
function served(): ServedRun {
  const run = new ServedRun('wf-1', 'wf', '/wf', '/pool/wf-1.json', Date.now());
  run.control = { answer: () => {} };
  return run;
}

const never = new AbortController().signal;
const noAnswer = () => Promise.reject(new Error('not expected'));

describe('followRun', () => {
  it('returns when the run ends, with each step as progress', async () => {
    const run = served();
    const progress: string[] = [];
    const followed = followRun(run, {
      waitMs: 60_000,
      signal: never,
      progress: (l) => progress.push(l),
      answer: noAnswer,
    });
    run.onEvent({
      type: 'step.done',
      agentId: 'main',
      from: 'START.md',
      decision: { kind: 'goto', target: 'NEXT.md' } as never,
      to: 'NEXT.md',
      session: null,
      depth: 0,
      costUsd: 0.5,
      totalCostUsd: 0.5,
      workers: [],
    });
    run.finish('completed');
    assert.equal(await followed, 'ended');
    assert.deepEqual(progress, ['main: START.md -> NEXT.md ($0.50)']);
  });

  it('returns "waited" when the wait runs out or the caller goes away, the run going on', async () => {
    assert.equal(
      await followRun(served(), { waitMs: 20, signal: never, answer: noAnswer }),
      'waited',
    );
    const gone = new AbortController();
    const followed = followRun(served(), { waitMs: 60_000, signal: gone.signal, answer: noAnswer });
    gone.abort();
    assert.equal(await followed, 'waited');
    assert.equal(
      await followRun(served(), { waitMs: 0, signal: never, answer: noAnswer }),
      'at-once',
    );
  });

  it('without elicitation, a question returns at once as "asking", with the question in the text', async () => {
    const run = served();
    run.onEvent({ type: 'ask.created', ask: ask('ask_main_1') });
    assert.equal(
      await followRun(run, { waitMs: 60_000, signal: never, answer: noAnswer }),
      'asking',
    );
    const r = toolResult(run, 'asking');
    assert.match(
      (r.content[0] as { text: string }).text,
      /- ask_id ask_main_1: question ask_main_1\?/,
    );
    assert.equal((r.structuredContent as { status: string }).status, 'asking');
  });

  it('with elicitation, each question goes to the person once; an answer goes to the run and the wait goes on', async () => {
    const run = served();
    const asked: string[] = [];
    const answered: string[] = [];
    run.onEvent({ type: 'ask.created', ask: ask('ask_main_1') });
    const followed = followRun(run, {
      waitMs: 60_000,
      signal: never,
      elicit: (a) => {
        asked.push(a.id);
        return Promise.resolve('approve');
      },
      answer: (a, text) => {
        answered.push(`${a.id}=${text}`);
        run.asks.delete(a.id);
        setImmediate(() => run.finish('completed'));
        return Promise.resolve();
      },
    });
    assert.equal(await followed, 'ended');
    assert.deepEqual(asked, ['ask_main_1']);
    assert.deepEqual(answered, ['ask_main_1=approve']);
  });

  it('a declined question returns "asking"', async () => {
    const run = served();
    run.onEvent({ type: 'ask.created', ask: ask('ask_main_2') });
    const why = await followRun(run, {
      waitMs: 60_000,
      signal: never,
      elicit: () => Promise.resolve(undefined),
      answer: noAnswer,
    });
    assert.equal(why, 'asking');
  });
});
