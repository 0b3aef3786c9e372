import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiGate } from '../../src/gate/api-gate.js';
import { GATE_TUNING } from '../../src/gate/gate-rules.js';
import { ApiServer } from '../helpers/api-server.js';

/** A model request as Claude Code sends one: it streams, and carries tools (the API's main loop). */
function ask(base: string, n: number, signal?: AbortSignal) {
  return fetch(`${base}/v1/messages?beta=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
    body: JSON.stringify({
      model: 'claude-sonnet-5-5',
      stream: true,
      max_tokens: 100,
      tools: [{ name: 'Bash', input_schema: { type: 'object' } }],
      messages: [{ role: 'user', content: `Worker ${n}` }],
    }),
    ...(signal ? { signal } : {}),
  });
}

describe('ApiGate', () => {
  const open: Array<ApiGate | ApiServer> = [];
  afterEach(async () => {
    for (const o of open.splice(0))
      if (o instanceof ApiServer) await o.stop();
      else o.close();
  });

  async function world(limit: (s: ApiServer) => ApiServer) {
    const server = limit(await new ApiServer().start());
    server.on(/Worker (\d+)/, (r) => ({ text: `done ${/Worker (\d+)/.exec(r.prompt)![1]}` }));
    const gate = await ApiGate.open(server.url);
    open.push(server, gate);
    return { server, gate };
  }

  it('spaces a burst at the rate the headers tell: every request answered, none refused', async () => {
    const { server, gate } = await world((s) => s.limit(10));
    const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => ask(gate.url, i)));
    const texts = await Promise.all(answers.map((a) => a.text()));
    assert.deepEqual(
      answers.map((a) => a.status),
      Array(25).fill(200),
    );
    texts.forEach((t, i) => assert.match(t, new RegExp(`done ${i}\\b`)));
    assert.equal(server.served, 25);
    assert.equal(server.refused, 0, 'the first answer told the rate before the rest went');
    assert.equal(gate.view.perSecond, 10);
    assert.equal(gate.view.told, true);
    assert.equal(gate.view.waiting, 0);
  });

  it('holds what an API that tells nothing refuses, sends it again after its retry-after, and learns the rate', async () => {
    const { server, gate } = await world((s) => s.limit(4, { headers: false }));
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => ask(gate.url, i)));
    await Promise.all(answers.map((a) => a.text()));
    assert.deepEqual(
      answers.map((a) => a.status),
      Array(12).fill(200),
      'no 429 reached the client',
    );
    assert.equal(server.served, 12);
    assert.ok(server.refused > 0, 'the API refused some');
    assert.equal(gate.view.absorbed, server.refused, 'each refusal was held by the gate');
    assert.equal(gate.view.told, false);
    assert.ok(gate.view.perSecond! > 0, 'a rate was learned');
  });

  it('passes a usage limit on at once, as it came', async () => {
    const { server, gate } = await world((s) => s.spendAfter(0, 60_000));
    const answer = await ask(gate.url, 1);
    assert.equal(answer.status, 429);
    assert.equal(answer.headers.get('anthropic-ratelimit-unified-status'), 'rejected');
    assert.match(await answer.text(), /usage limit/);
    assert.equal(server.usageRefused, 1);
    assert.equal(gate.view.absorbed, 0);
  });

  it('passes a refusal on once the request was held its bound', async () => {
    const server = (await new ApiServer().start()).limit(0.2, { headers: false });
    const gate = await ApiGate.open(server.url, { ...GATE_TUNING, maxHoldMs: 1000 });
    open.push(server, gate);
    await (await ask(gate.url, 0)).text();
    const refused = await ask(gate.url, 1);
    assert.equal(refused.status, 429, 'retry-after (5 s) is past the 1 s bound');
    assert.equal(refused.headers.get('retry-after'), '5');
    await refused.text();
  });

  it('forgets a request its client gave up on, and forwards other calls as they are', async () => {
    const { server, gate } = await world((s) => s.limit(0.5));
    await (await ask(gate.url, 0)).text();
    const gone = new AbortController();
    const waiting = ask(gate.url, 1, gone.signal).catch((e: Error) => e.name);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(gate.view.waiting, 1);
    gone.abort();
    assert.equal(await waiting, 'AbortError');
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(gate.view.waiting, 0);
    assert.equal(server.served, 1, 'the abandoned request never reached the API');
    // Claude Code's first call: HEAD / (the scripted API answers it 404), through as it is.
    const direct = await fetch(`${server.url}/`, { method: 'HEAD' });
    const head = await fetch(`${gate.url}/`, { method: 'HEAD' });
    assert.equal(head.status, direct.status);
  });
});
