import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunEvent } from '../../machines/run-events.js';
import type { ResolvedDecisionData } from '../../machines/types.js';
import { describeStep, eventLine } from '../../src/cli/describe-event.js';
import { createPlainReporter } from '../../src/cli/progress.js';

const done = (
  decision: ResolvedDecisionData,
  to: string | null,
  workers: Array<{ id: string; state: string; attributes: Record<string, string> }> = [],
) =>
  ({
    type: 'step.done',
    agentId: 'main',
    from: 'A.sh',
    decision,
    to,
    session: null,
    depth: 0,
    costUsd: 0,
    totalCostUsd: 0,
    workers,
  }) as const;

describe('events as text', () => {
  it('one line per step, made from the event', () => {
    assert.equal(
      describeStep(done({ kind: 'goto', target: 'B.sh', input: 'x' }, 'B.sh')),
      '[main] A.sh -> goto B.sh (input: x)',
    );
    assert.equal(
      describeStep(done({ kind: 'call', target: 'C.md', returnTo: 'D.sh' }, 'C.md')),
      '[main] A.sh -> call C.md, returning to D.sh',
    );
    assert.equal(
      describeStep(
        done({ kind: 'fork', next: 'E.sh', workers: [] }, 'E.sh', [
          { id: 'main_w1', state: 'W.sh', attributes: { i: '1' } },
        ]),
      ),
      '[main] A.sh -> fork main_w1 (W.sh i="1"); continues at E.sh',
    );
    const big = describeStep(
      done({ kind: 'fork', next: 'E.sh', workers: [] }, 'E.sh', [
        { id: 'main_w1', state: 'W.sh', attributes: { blob: 'line\n'.repeat(100_000) } },
      ]),
    );
    assert.equal(
      big,
      `[main] A.sh -> fork main_w1 (W.sh blob="${'line '.repeat(11)}li..."); continues at E.sh`,
      'a large attribute is shortened like an input',
    );
    assert.equal(
      describeStep(done({ kind: 'result', payload: 'ok' }, null)),
      '[main] A.sh -> result: ok',
    );
    assert.equal(
      describeStep(done({ kind: 'result', payload: 'ok' }, 'BACK.sh')),
      '[main] A.sh -> result to BACK.sh: ok',
    );
  });

  it('warnings and pauses are warnings; details and failures only with --verbose', () => {
    const failure = {
      kind: 'step-failure',
      code: 'ERR_AGENT_FAILED',
      message: 'crashed',
      file: 'wf/A.md',
      pauses: true,
      spentUsd: 0,
      sessionCosts: {},
    } as const;
    assert.deepEqual(
      eventLine(
        { type: 'agent.paused', agentId: 'w', state: 'A.md', failure, totalCostUsd: 0 },
        false,
      ),
      { text: 'warning: [w] paused: wf/A.md: crashed', warning: true },
    );
    assert.equal(eventLine({ type: 'detail', text: 'd' }, false), undefined);
    assert.deepEqual(eventLine({ type: 'detail', text: 'd' }, true), { text: 'd' });
    assert.equal(
      eventLine(
        {
          type: 'agent.failed',
          agentId: 'w',
          state: 'A.md',
          failure: { ...failure, pauses: false },
          totalCostUsd: 0,
        },
        false,
      ),
      undefined,
    );
  });

  it('the plain reporter prints lines, and only warnings when quiet', () => {
    const out: string[] = [];
    const events: RunEvent[] = [
      { type: 'step.started', agentId: 'main', state: 'A.sh' },
      { type: 'print', agentId: 'main', text: 'hi' },
      { type: 'warning', text: 'careful' },
    ];
    events.forEach(
      createPlainReporter({ quiet: false, verbose: false, write: (t) => out.push(t) }),
    );
    assert.deepEqual(out, ['[main] running A.sh\n', '[main] hi\n', 'warning: careful\n']);
    out.length = 0;
    events.forEach(createPlainReporter({ quiet: true, verbose: false, write: (t) => out.push(t) }));
    assert.deepEqual(out, ['warning: careful\n']);
  });
});
