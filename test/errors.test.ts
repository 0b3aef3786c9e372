import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonError } from '../src/cli/dispatch.js';
import { RaymondError, aliasesOf, currentCode, toStepFailure } from '../src/errors.js';
import { rayEnvelopes } from '../src/serve/sse-envelopes.js';

describe('errors: code aliases', () => {
  it('reads an old Claude-named code back as its agent code', () => {
    assert.equal(currentCode('ERR_CLAUDE_FAILED'), 'ERR_AGENT_FAILED');
    assert.equal(currentCode('ERR_CLAUDE_REFUSED'), 'ERR_AGENT_REFUSED');
    assert.equal(currentCode('ERR_MODEL'), 'ERR_MODEL');
    const old = RaymondError.fromJSON({
      code: 'ERR_CLAUDE_FAILED' as never,
      message: 'a worker of an older Raymond',
    });
    assert.equal(old.code, 'ERR_AGENT_FAILED');
    // And it still pauses its agent (resumable), as the old code did.
    assert.equal(toStepFailure(old).pauses, true);
  });

  it('gives a script the old names beside the code, and nothing for codes never renamed', () => {
    assert.deepEqual(aliasesOf('ERR_AGENT_FAILED'), ['ERR_CLAUDE_FAILED']);
    assert.deepEqual(aliasesOf('ERR_USAGE'), []);
    assert.deepEqual(JSON.parse(jsonError('turn failed', 'ERR_AGENT_REFUSED')), {
      error: 'turn failed',
      code: 'ERR_AGENT_REFUSED',
      aliases: ['ERR_CLAUDE_REFUSED'],
    });
    assert.deepEqual(JSON.parse(jsonError('bad flag', 'ERR_USAGE')), {
      error: 'bad flag',
      code: 'ERR_USAGE',
    });
  });

  it("carries the old names in serve's error_occurred events, as ray's clients read them", () => {
    const failure = toStepFailure(new RaymondError('ERR_AGENT_REFUSED', 'not logged in'));
    const [envelope] = rayEnvelopes(
      { type: 'agent.failed', agentId: 'main', state: 'START.md', failure, totalCostUsd: 0 },
      'run1',
      false,
    );
    assert.equal((envelope as Record<string, unknown>).ErrorType, 'ERR_AGENT_REFUSED');
    assert.deepEqual((envelope as Record<string, unknown>).ErrorAliases, ['ERR_CLAUDE_REFUSED']);
  });
});

describe('errors: a turn stopped at the budget', () => {
  it('ERR_BUDGET pauses its agent, charges what the turn streamed, and spends the budget', () => {
    const failure = toStepFailure(
      new RaymondError('ERR_BUDGET', 'stopped by --budget-hard', {
        file: 'START.md',
        details: { spentUsd: 0.42, sessionCosts: {}, session: 's1', costUsd: 0.42 },
      }),
    );
    assert.equal(failure.pauses, true);
    assert.equal(failure.budget, true);
    assert.equal(failure.spentUsd, 0.42);
    assert.equal(toStepFailure(new RaymondError('ERR_AGENT_FAILED', 'stopped')).budget, undefined);
  });
});
