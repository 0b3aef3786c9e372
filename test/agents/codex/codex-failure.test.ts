import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  codexFailureKind,
  codexLimitStatus,
  codexResetAt,
} from '../../../src/agents/codex/codex-failure.js';

describe('codexFailureKind', () => {
  // Each as codex 0.171 said it in `turn.failed` for the scripted server's answer.
  const said: Array<[string, string, ReturnType<typeof codexFailureKind>]> = [
    ['429', 'exceeded retry limit, last status: 429 Too Many Requests', undefined],
    [
      '500',
      'We’re currently experiencing high demand, which may cause temporary errors.',
      undefined,
    ],
    [
      '503',
      'unexpected status 503 Service Unavailable: overloaded, url: http://127.0.0.1:1/v1/responses',
      undefined,
    ],
    [
      'a cut stream',
      'stream disconnected before completion: stream closed before response.completed',
      undefined,
    ],
    [
      '429 usage_limit_reached',
      'You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 8:06 PM.',
      'usage',
    ],
    ['429 insufficient_quota', 'Quota exceeded. Check your plan and billing details.', 'usage'],
    ['credits', 'Your workspace is out of credits. Add credits to continue.', 'usage'],
    [
      '401',
      'unexpected status 401 Unauthorized: Incorrect API key provided: sk-xx., url: http://127.0.0.1:1/v1/responses',
      'auth',
    ],
    ['an unset key variable', 'Missing environment variable: `MOCK_CODEX_KEY`.', 'auth'],
    ['400 model_not_found', "The requested model 'nope-model' does not exist.", 'model'],
    [
      '404 model_not_found',
      'The model `nope-model` does not exist or you do not have access to it.',
      'model',
    ],
    [
      '400 cyber_policy',
      'This request has been flagged for possible cybersecurity risk.',
      'policy',
    ],
  ];
  for (const [what, message, kind] of said)
    it(`${what}: ${kind ?? 'a retry may cure it'}`, () =>
      assert.equal(codexFailureKind(message), kind));
});

describe('codexResetAt', () => {
  const now = new Date(2026, 10, 27, 14, 30).getTime(); // 2:30 PM local

  it('reads a time today', () => {
    assert.equal(
      codexResetAt('You’ve hit your usage limit. ... or try again at 8:06 PM.', now),
      new Date(2026, 10, 27, 20, 6).getTime(),
    );
    assert.equal(
      codexResetAt('Try again at 12:15 AM.', now),
      new Date(2026, 10, 28, 0, 15).getTime(),
    );
  });

  it('reads a passed time as tomorrow, but not one in this very minute', () => {
    assert.equal(
      codexResetAt('Try again at 9:00 AM.', now),
      new Date(2026, 10, 28, 9, 0).getTime(),
    );
    assert.equal(
      codexResetAt('Try again at 2:30 PM.', now + 30_000),
      new Date(2026, 10, 27, 14, 30).getTime(),
    );
  });

  it('reads a date', () => {
    assert.equal(
      codexResetAt("You've hit your usage limit. Try again at Nov 29th, 2026 8:06 PM.", now),
      new Date(2026, 10, 29, 20, 6).getTime(),
    );
    assert.equal(
      codexResetAt('or try again at Dec 1st, 2026 12:05 PM.', now),
      new Date(2026, 11, 1, 12, 5).getTime(),
    );
  });

  it('knows nothing of "try again later"', () => {
    assert.equal(codexResetAt("You've hit your usage limit. Try again later.", now), undefined);
  });
});

describe('codexLimitStatus', () => {
  it('a refused rate is 429 and an overload 529; a usage limit and other failures are none', () => {
    assert.equal(codexLimitStatus('exceeded retry limit, last status: 429 Too Many Requests'), 429);
    assert.equal(codexLimitStatus('Reconnecting... 1/5 (unexpected status 529: overloaded)'), 529);
    assert.equal(codexLimitStatus('Quota exceeded. Check your plan and billing details.'), null);
    assert.equal(codexLimitStatus("You've hit your usage limit. Try again at 8:06 PM."), null);
    assert.equal(codexLimitStatus('stream disconnected before completion'), null);
  });
});
