import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CodexTurns } from './codex-turns.js';

describe("the codex executor: failures, as Claude Code's (real codex)", () => {
  const c = new CodexTurns();
  before(() => c.start());
  after(() => c.stop());

  it('a rate limit (429) is ERR_AGENT_FAILED, retried by the caller', async () => {
    c.sb.server.on('rate limited', {
      status: 429,
      headers: { 'retry-after': '7' },
      body: { error: { type: 'rate_limit_exceeded', message: 'Rate limit reached' } },
    });
    const err = await c.failure({ prompt: 'rate limited' });
    assert.equal(err.code, 'ERR_AGENT_FAILED');
    assert.match(err.message, /429/);
    assert.match(String(err.details.session), /^[0-9a-f-]{36}$/);
    assert.equal(
      err.details.limited,
      429,
      'a refused rate: tried again uncounted, and the width narrows',
    );
  });

  it('a server error (500) is ERR_AGENT_FAILED', async () => {
    c.sb.server.on('server error', { status: 500 });
    const err = await c.failure({ prompt: 'server error' });
    assert.equal(err.code, 'ERR_AGENT_FAILED');
    assert.match(err.message, /^Codex reported an error: We.re currently experiencing high demand/);
  });

  it('a refused key (401) is ERR_AGENT_REFUSED: retrying cannot help', async () => {
    c.sb.server.on('unauthorized', {
      status: 401,
      body: { error: { message: 'Incorrect API key provided' } },
    });
    const err = await c.failure({ prompt: 'unauthorized' });
    assert.equal(err.code, 'ERR_AGENT_REFUSED');
    assert.match(err.message, /^Codex is not logged in or its API key was refused/);
    assert.match(err.message, /codex login/);
  });

  it('an unknown model (404) is ERR_AGENT_REFUSED naming the model', async () => {
    c.sb.server.on('no such model', {
      status: 404,
      body: { error: { code: 'model_not_found', message: 'The model `gpt-x` does not exist' } },
    });
    const err = await c.failure({ prompt: 'no such model', model: 'gpt-x' });
    assert.equal(err.code, 'ERR_AGENT_REFUSED');
    assert.match(err.message, /Codex cannot use the model "gpt-x"/);
  });

  it('a usage limit is ERR_USAGE_LIMIT with the time it resets', async () => {
    const resetsAt = Math.floor(Date.now() / 1000) + 3 * 3600;
    c.sb.server.on('usage limit', {
      status: 429,
      body: { error: { type: 'usage_limit_reached', plan_type: 'plus', resets_at: resetsAt } },
    });
    const err = await c.failure({ prompt: 'usage limit' });
    assert.equal(err.code, 'ERR_USAGE_LIMIT');
    // codex prints the time to the minute.
    const at = err.details.resetsAt as number;
    assert.ok(Math.abs(at - resetsAt * 1000) < 60_000, `${new Date(at).toISOString()}`);
  });

  it('a stream cut short is ERR_AGENT_FAILED', async () => {
    c.sb.server.on('cut short', { text: 'partial', cut: true });
    const err = await c.failure({ prompt: 'cut short' });
    assert.equal(err.code, 'ERR_AGENT_FAILED');
    assert.match(err.message, /stream disconnected before completion/);
  });

  it("stops codex's own retries (five, by default) at the first refusal of the key", async () => {
    const home = join(c.sb.dir, 'retrying-home');
    c.sb.writeConfig(home);
    const config = join(home, 'config.toml');
    writeFileSync(
      config,
      readFileSync(config, 'utf8').replace(/^(request|stream)_max_retries = 0\n/gm, ''),
    );
    c.sb.server.on('refused again', { status: 401 });
    const err = await c.failure({ prompt: 'refused again', env: { CODEX_HOME: home } });
    assert.equal(err.code, 'ERR_AGENT_REFUSED');
    assert.match(err.message, /\("unexpected status 401 Unauthorized/);
    // Six requests had codex gone on (measured): it was stopped at the first.
    assert.ok(c.sb.server.requestsFor('refused again').length < 6);
  });

  it('a thread codex does not have, or a provider it does not know, is ERR_AGENT_REFUSED', async () => {
    const missing = await c.failure({
      prompt: 'resume nothing',
      session: { kind: 'resume', session: '01a21e65-0000-7000-8000-000000000000' },
    });
    assert.equal(missing.code, 'ERR_AGENT_REFUSED');
    assert.match(
      missing.message,
      /^codex refused to start the turn \(no rollout found for thread id 01a21e65-0000-7000-8000-000000000000\); retrying cannot help$/,
    );
    const provider = await c.failure({ prompt: 'no provider', options: { provider: 'nope' } });
    assert.equal(provider.code, 'ERR_AGENT_REFUSED');
    assert.match(provider.message, /Model provider `nope` not found/);
  });
});
