import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { gateEnv } from '../../src/gate/gate-env.js';
import { claudeApi } from '../../src/agents/claude/claude-api.js';

describe('gateEnv', () => {
  it('names the gate in the backend variable; with a proxy, keeps loopback off it', () => {
    const saved = { ...process.env };
    for (const k of [
      'HTTP_PROXY',
      'HTTPS_PROXY',
      'http_proxy',
      'https_proxy',
      'NO_PROXY',
      'no_proxy',
    ])
      delete process.env[k];
    try {
      assert.deepEqual(gateEnv('ANTHROPIC_BASE_URL', 'http://127.0.0.1:5', {}), {
        ANTHROPIC_BASE_URL: 'http://127.0.0.1:5',
      });
      const proxied = gateEnv('ANTHROPIC_BASE_URL', 'http://127.0.0.1:5', {
        HTTPS_PROXY: 'http://proxy:3128',
        NO_PROXY: 'internal.example',
      });
      assert.equal(proxied.NO_PROXY, 'internal.example,127.0.0.1');
      assert.equal(proxied.no_proxy, proxied.NO_PROXY);
      const already = gateEnv('X', 'u', { HTTPS_PROXY: 'p', NO_PROXY: 'a, 127.0.0.1' });
      assert.equal(already.NO_PROXY, 'a, 127.0.0.1');
    } finally {
      process.env = saved;
    }
  });
});

describe('claudeApi', () => {
  it("is the environment's ANTHROPIC_BASE_URL, else Anthropic's; none on a cloud's endpoint", () => {
    assert.deepEqual(claudeApi({}), {
      variable: 'ANTHROPIC_BASE_URL',
      baseUrl: 'https://api.anthropic.com',
      env: { ENABLE_TOOL_SEARCH: 'true' },
    });
    assert.equal(
      claudeApi({ ENABLE_TOOL_SEARCH: 'false' })!.env,
      undefined,
      "the user's choice stands",
    );
    assert.equal(
      claudeApi({ ANTHROPIC_BASE_URL: 'http://gw:8080/anthropic' })!.baseUrl,
      'http://gw:8080/anthropic',
    );
    assert.equal(claudeApi({ ANTHROPIC_BASE_URL: 'not a url' })!.env, undefined);
    assert.equal(claudeApi({ CLAUDE_CODE_USE_BEDROCK: '1' }), undefined);
    assert.equal(claudeApi({ CLAUDE_CODE_USE_VERTEX: 'true' }), undefined);
    assert.ok(claudeApi({ CLAUDE_CODE_USE_BEDROCK: '0' }), 'turned off is not on');
  });
});
