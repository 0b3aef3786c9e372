import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { asStepFailure, failureText } from '../../machines/step-failure.js';
import { RaymondError, toStepFailure } from '../../src/errors.js';

describe('step failures', () => {
  it('a Claude Code failure or a usage limit pauses; anything else fails the run', () => {
    assert.equal(
      toStepFailure(new RaymondError('ERR_AGENT_FAILED', 'crashed', { file: 'wf/A.md' })).pauses,
      true,
    );
    assert.equal(
      toStepFailure(new RaymondError('ERR_USAGE_LIMIT', 'limit', { details: { resetsAt: 42 } }))
        .resetsAt,
      42,
    );
    assert.equal(
      toStepFailure(
        new RaymondError('ERR_SCRIPT_FAILED', 'exited with code 3', { file: 'wf/B.sh' }),
      ).pauses,
      false,
    );
  });

  it('keeps the raw message and the file apart; the text joins them', () => {
    const f = toStepFailure(
      new RaymondError('ERR_SCRIPT_FAILED', 'exited with code 3', {
        file: 'wf/B.sh',
        details: { spentUsd: 0.5, sessionCosts: { s: 1 } },
      }),
    );
    assert.equal(f.message, 'exited with code 3');
    assert.equal(f.file, 'wf/B.sh');
    assert.equal(failureText(f), 'wf/B.sh: exited with code 3');
    assert.equal(f.spentUsd, 0.5);
    assert.deepEqual(f.sessionCosts, { s: 1 });
  });

  it('anything that is not a RaymondError is an internal error that fails the run, with its stack for --verbose', () => {
    const f = toStepFailure(new TypeError('x is undefined'));
    assert.equal(f.code, 'ERR_INTERNAL');
    assert.equal(f.pauses, false);
    assert.match(f.detail!, /TypeError: x is undefined/);
    assert.equal(asStepFailure(f), f, 'a failure stays itself');
    assert.equal(asStepFailure('boom').message, 'boom');
  });
});

describe('failures that stop the whole run', () => {
  it("a full disk and a bug of ours halt the run even when a forked worker meets them; a script's own exit does not", () => {
    assert.equal(
      toStepFailure(
        new RaymondError(
          'ERR_TASK_FOLDER',
          'cannot make the task folder /t: ENOSPC: no space left on device; make room, then resume',
        ),
      ).halts,
      true,
    );
    assert.equal(toStepFailure(new Error('undefined is not a function')).halts, true);
    assert.equal(
      toStepFailure(new RaymondError('ERR_SCRIPT_FAILED', 'exited with code 3')).halts,
      undefined,
    );
  });
});
