import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { transitionLine } from '../../src/state/debug-log.js';

describe('debug log lines', () => {
  it('transitions.log says from, to, tag, cost, total, session and depth', () => {
    const line = transitionLine({
      type: 'step.done',
      agentId: 'main',
      from: 'A.md',
      decision: { kind: 'call', target: 'C.md', returnTo: 'B.md' },
      to: 'C.md',
      session: 's1',
      depth: 1,
      costUsd: 0.5,
      totalCostUsd: 1.25,
      workers: [],
    });
    assert.equal(
      line,
      '[main] A.md -> C.md (call) cost=$0.500000 total=$1.250000 session=s1 depth=1',
    );
    const end = transitionLine({
      type: 'step.done',
      agentId: 'w',
      from: 'W.sh',
      decision: { kind: 'result', payload: 'x' },
      to: null,
      session: null,
      depth: 0,
      costUsd: 0,
      totalCostUsd: 0,
      workers: [],
    });
    assert.equal(
      end,
      '[w] W.sh -> (terminated) (result) cost=$0.000000 total=$0.000000 session=- depth=0',
    );
  });

  it('failures and pauses, with the file; other events write nothing', () => {
    const failure = {
      kind: 'step-failure',
      code: 'ERR_SCRIPT_FAILED',
      message: 'exited with code 3',
      file: 'wf/B.sh',
      pauses: false,
      spentUsd: 0,
      sessionCosts: {},
    } as const;
    assert.equal(
      transitionLine({
        type: 'agent.failed',
        agentId: 'main',
        state: 'B.sh',
        failure,
        totalCostUsd: 0,
      }),
      '[main] B.sh failed: wf/B.sh: exited with code 3',
    );
    assert.equal(transitionLine({ type: 'print', agentId: 'main', text: 'x' }), undefined);
  });

  it("an ask's answer is written with its text (raymond record replays it), an expiry without", () => {
    assert.equal(
      transitionLine({
        type: 'ask.answered',
        agentId: 'main',
        askId: 'ask_main_1',
        expired: false,
        text: 'yes, "go"\nnow',
      }),
      '[main] ask ask_main_1 answered: "yes, \\"go\\"\\nnow"',
    );
    assert.equal(
      transitionLine({ type: 'ask.answered', agentId: 'w', askId: 'a2', expired: true }),
      '[w] ask a2 expired',
    );
  });
});
