import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { AgentAsk } from '../../machines/types.js';
import { createLiveFeed } from '../../src/web/live-feed.js';
import { createLiveRoutes, type LiveControl } from '../../src/web/live-routes.js';

const ask: AgentAsk = {
  id: 'ask_main_1',
  prompt: 'Approve?',
  created_at: '2026-01-01T00:00:00Z',
  next: 'DECIDE.sh',
  agent_id: 'main',
};
const feed = createLiveFeed();
const calls: string[] = [];
let control: LiveControl | undefined;
let server: Server;
let port = 0;
let routes: ReturnType<typeof createLiveRoutes>;

before(async () => {
  server = createServer((req, res) => {
    if (!routes.handle(req, res)) res.writeHead(200).end('other page');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
  routes = createLiveRoutes({
    base: '/live',
    port,
    feed,
    diagram: () => Promise.resolve(undefined),
    control: () => control,
    page: { heading: 'Raymond live view (offline)' },
  });
});
after(async () => {
  await routes.close();
  server.closeAllConnections();
  server.close();
});

/** One request with the given headers (Host included), and the response's status, headers and body. */
function call(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body = '',
): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method, path, headers: { host: `localhost:${port}`, ...headers } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += String(c)));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            type: String(res.headers['content-type']),
            body: text,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const json = { 'content-type': 'application/json' };

describe('the live routes', () => {
  it('serve the page with its URLs, and leave other paths to the server', async () => {
    const page = await call('GET', '/live');
    assert.equal(page.status, 200);
    assert.match(page.body, /<h1 id="heading">Raymond live view \(offline\)<\/h1>/);
    assert.match(
      page.body,
      /"snapshot":"\/live\/snapshot","events":"\/live\/events","diagram":"\/live\/diagram.svg","answer":"\/live\/asks\/\{ask_id\}","cancel":"\/live\/cancel"/,
    );
    assert.doesNotMatch(
      page.body,
      /(src|href)\s*=\s*["']?https?:|<link\b|<script[^>]*\bsrc=/i,
      'nothing from the network',
    );
    assert.equal((await call('GET', '/')).body, 'other page');
    assert.equal((await call('GET', '/lively')).body, 'other page');
    assert.equal((await call('GET', '/live/diagram.svg')).status, 404);
  });

  it('refuse another Host (DNS rebinding), another origin, and a body that is not JSON', async () => {
    const host = await call('GET', '/live/snapshot', { host: `evil.example:${port}` });
    assert.deepEqual([host.status, JSON.parse(host.body).code], [403, 'ERR_HOST']);
    const origin = await call(
      'POST',
      '/live/cancel',
      { ...json, origin: 'http://evil.example' },
      '{}',
    );
    assert.deepEqual([origin.status, JSON.parse(origin.body).code], [403, 'ERR_ORIGIN']);
    const form = await call(
      'POST',
      '/live/asks/x',
      { 'content-type': 'application/x-www-form-urlencoded' },
      'response=yes',
    );
    assert.deepEqual([form.status, JSON.parse(form.body).code], [415, 'ERR_CONTENT_TYPE']);
    assert.deepEqual(calls, []);
  });

  it('answer a pending ask and cancel the run through the control, once the run started', async () => {
    const early = await call('POST', '/live/cancel', json, '{}');
    assert.deepEqual([early.status, JSON.parse(early.body).code], [409, 'ERR_NOT_STARTED']);
    control = {
      answer: (id, text) => calls.push(`answer ${id} ${text}`),
      cancel: () => calls.push('cancel'),
    };
    feed.push({
      type: 'run.started',
      workflowId: 'wf-1',
      workflow: 'wf',
      resumed: false,
      at: 1,
      budgetUsd: 0,
      totalCostUsd: 0,
      counts: { idle: 1, invoking: 0, 'awaiting-child': 0, terminated: 0, paused: 0, asking: 0 },
    });
    feed.push({ type: 'ask.created', ask });
    const unknown = await call(
      'POST',
      '/live/asks/ask_nope',
      { ...json, origin: `http://localhost:${port}` },
      '{"response":"yes"}',
    );
    assert.deepEqual([unknown.status, JSON.parse(unknown.body).code], [404, 'ERR_NO_SUCH_ASK']);
    const bad = await call('POST', `/live/asks/${ask.id}`, json, '{"text":"yes"}');
    assert.deepEqual([bad.status, JSON.parse(bad.body).code], [400, 'ERR_BAD_JSON']);
    const ok = await call(
      'POST',
      `/live/asks/${ask.id}`,
      { ...json, origin: `http://127.0.0.1:${port}` },
      '{"response":"approve"}',
    );
    assert.equal(ok.status, 200);
    assert.deepEqual(JSON.parse(ok.body), { run_id: 'wf-1', ask_id: ask.id, status: 'resumed' });
    const cancel = await call('POST', '/live/cancel', json, '{}');
    assert.equal(cancel.status, 202);
    assert.deepEqual(calls, [`answer ${ask.id} approve`, 'cancel']);
  });

  it('stream events with ids, from the one after Last-Event-ID, and ask a page that missed too much to reload', async () => {
    const viewer = routes.viewer();
    const got = await new Promise<string>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/live/events?since=0',
          headers: { host: `localhost:${port}`, 'last-event-id': '1' },
        },
        (res) => {
          assert.equal(res.headers['content-type'], 'text/event-stream');
          let text = '';
          res.on('data', (c: Buffer) => {
            text += String(c);
            if (text.includes('id: 3\n')) {
              req.destroy();
              resolve(text);
            }
          });
        },
      );
      req.on('error', reject);
      req.end();
      setTimeout(() => feed.push({ type: 'print', agentId: 'main', text: 'hello' }), 50);
    });
    await viewer;
    assert.match(
      got,
      /^retry: 1000\n\nid: 2\ndata: \{"type":"ask\.created",.*\}\n\nid: 3\ndata: \{"type":"print","agentId":"main","text":"hello"\}\n\n$/s,
    );
    const future = await call('GET', '/live/events?since=99');
    assert.equal(future.body, 'retry: 1000\n\nevent: reset\ndata: {}\n\n');
  });
});
