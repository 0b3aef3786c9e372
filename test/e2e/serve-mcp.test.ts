import assert from 'node:assert/strict';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ROOT, Sandbox, sh } from '../helpers/cli.js';
import { api, startServe, until, type ServeProcess } from '../helpers/serve.js';

// `raymond serve`'s /mcp: MCP's Streamable HTTP transport behind the server's token and origin checks.
const examples = join(ROOT, 'workflows/examples');
const TOKEN = 's3cret-mcp';
const auth = { Authorization: `Bearer ${TOKEN}` };
const box = new Sandbox();
let server: ServeProcess;

before(async () => {
  server = await startServe(['--root', examples, '--token', TOKEN], box.dir, {
    RAYMOND_SERVE_TOKEN: '',
  });
});
after(async () => {
  await server?.stop();
  box.remove();
});

/** An SDK client connected to `url`/mcp with the token; `elicit` answers the server's questions when given. */
async function connect(
  url: string,
  elicit?: (message: string) => Promise<string>,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: auth },
  });
  const client = new Client(
    { name: 'serve-mcp-test', version: '1.0.0' },
    { capabilities: elicit ? { elicitation: { form: {} } } : {} },
  );
  if (elicit)
    client.setRequestHandler(ElicitRequestSchema, async (req) => ({
      action: 'accept',
      content: { answer: await elicit(req.params.message) },
    }));
  await client.connect(transport);
  return { client, transport };
}

/** The structured run report of a tool's answer. */
const reportOf = (r: unknown) =>
  (r as CallToolResult).structuredContent as { run_id: string; status: string; asks: any[] };
const textOf = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

/** A raw request (fetch cannot set Host). */
function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const r = request(url, { method, headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(body) }));
    });
    r.on('error', reject);
    r.end();
  });
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  },
};
const mcpHeaders = { Accept: 'application/json, text/event-stream' };

describe('raymond serve: /mcp', () => {
  it("refuses a request without the token (401), a wrong one, another site's Origin on any method, and a Host that is not loopback", async () => {
    const url = `${server.url}/mcp`;
    const bare = await api(url, 'POST', INITIALIZE, mcpHeaders);
    assert.equal(bare.status, 401);
    assert.equal(bare.body.code, 'unauthorized');
    const wrong = await api(url, 'POST', INITIALIZE, {
      ...mcpHeaders,
      Authorization: 'Bearer wrong',
    });
    assert.equal(wrong.status, 401);
    for (const method of ['POST', 'GET', 'DELETE']) {
      const cross = await api(url, method, method === 'POST' ? INITIALIZE : undefined, {
        ...mcpHeaders,
        ...auth,
        Origin: 'https://evil.example',
      });
      assert.equal(cross.status, 403, method);
      assert.equal(cross.body.code, 'cross_origin', method);
    }
    const rebound = await rawRequest(url, 'GET', { ...auth, Host: 'evil.example' });
    assert.equal(rebound.status, 403);
    assert.equal(rebound.body.code, 'bad_host');
    // With the token: a stream or a close needs a session, and an unknown one is a 404 (clients start over on it).
    const noSession = await api(url, 'GET', undefined, { ...auth, Accept: 'text/event-stream' });
    assert.equal(noSession.status, 400);
    assert.equal(noSession.body.code, 'session_required');
    const gone = await api(url, 'DELETE', undefined, { ...auth, 'Mcp-Session-Id': 'nope' });
    assert.equal(gone.status, 404);
    assert.equal(gone.body.code, 'session_not_found');
    const put = await api(url, 'PUT', undefined, auth);
    assert.equal(put.status, 405);
    assert.equal(put.body.code, 'method_not_allowed');
    // A message that does not open a session is refused by the transport, and leaves no session behind.
    const stray = await api(
      url,
      'POST',
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      {
        ...mcpHeaders,
        ...auth,
      },
    );
    assert.equal(stray.status, 400);
    assert.doesNotMatch(server.stderr(), /MCP session/);
  });

  it("lists the workflows and Raymond's tools, runs count-words as a run of the serve pool, and closes the session", async () => {
    const { client, transport } = await connect(server.url);
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const name of [
      'count-words',
      'approval',
      'raymond_status',
      'raymond_answer',
      'raymond_cancel',
    ])
      assert.ok(names.includes(name), `${name} in ${names.join(' ')}`);
    const r = await client.callTool({ name: 'count-words', arguments: { input: 'a b' } });
    assert.equal(textOf(r), "2 words in 'a b' (agent main)");
    const report = reportOf(r);
    assert.equal(report.status, 'completed');
    assert.match(report.run_id, /^count-words-/);
    const runs = await api(`${server.url}/runs`, 'GET', undefined, auth);
    const listed = runs.body.find((x: { run_id: string }) => x.run_id === report.run_id);
    assert.equal(listed?.status, 'completed');
    const id = transport.sessionId!;
    assert.match(server.stderr(), new RegExp(`MCP session ${id} opened by serve-mcp-test 1.0.0`));
    await transport.terminateSession();
    await client.close();
    assert.match(server.stderr(), new RegExp(`MCP session ${id} closed`));
    const after = await api(`${server.url}/mcp`, 'POST', INITIALIZE, {
      ...mcpHeaders,
      ...auth,
      'Mcp-Session-Id': id,
    });
    assert.equal(after.status, 404);
  });

  it('puts a question to a client that takes elicitations, and the call returns the completed run', async () => {
    const asked: string[] = [];
    const { client } = await connect(server.url, async (message) => {
      asked.push(message);
      return 'approve';
    });
    try {
      const r = await client.callTool({
        name: 'approval',
        arguments: { input: 'rename the loader' },
      });
      assert.equal(reportOf(r).status, 'completed', textOf(r));
      assert.match(textOf(r), /^implemented: rename the loader \(plan /);
      assert.equal(asked.length, 1);
      assert.match(asked[0]!, /^approval \(run approval-\w+\) asks:/);
    } finally {
      await client.close();
    }
  });

  it('gives a client without elicitation the ask_id; raymond_answer answers it and the run completes', async () => {
    const { client } = await connect(server.url);
    try {
      const first = await client.callTool({ name: 'approval', arguments: { input: 'split it' } });
      const report = reportOf(first);
      assert.equal(report.status, 'asking', textOf(first));
      assert.equal(report.asks.length, 1);
      const askId = report.asks[0].ask_id as string;
      assert.match(textOf(first), /raymond_answer/);
      // The ask is the pool's: the HTTP API shows it too.
      const pending = await api(
        `${server.url}/runs/${report.run_id}/pending-asks`,
        'GET',
        undefined,
        auth,
      );
      assert.equal(pending.body[0]?.ask_id, askId);
      const done = await client.callTool({
        name: 'raymond_answer',
        arguments: { run_id: report.run_id, ask_id: askId, answer: 'approve' },
      });
      assert.equal(reportOf(done).status, 'completed', textOf(done));
      assert.match(textOf(done), /^implemented: split it/);
    } finally {
      await client.close();
    }
  });
});

describe('raymond serve --wait: the most an MCP call of /mcp waits', () => {
  const local = new Sandbox();
  after(() => local.remove());

  it('--wait 0 returns a running run at once; raymond_cancel stops it', async () => {
    const roots = local.write({ 'slow/START.sh': sh('sleep 30', 'echo "<result>late</result>"') });
    const s = await startServe(['--root', roots, '--token', TOKEN, '--wait', '0'], local.dir);
    try {
      const { client } = await connect(s.url);
      const tools = (await client.listTools()).tools;
      assert.match(
        tools.find((t) => t.name === 'raymond_status')!.description!,
        /default and most: 0 s/,
      );
      const r = await client.callTool({ name: 'slow', arguments: { input: 'x' } });
      const report = reportOf(r);
      assert.equal(report.status, 'running', textOf(r));
      assert.match(textOf(r), /raymond_status/);
      const cancelled = await client.callTool({
        name: 'raymond_cancel',
        arguments: { run_id: report.run_id },
      });
      assert.equal(reportOf(cancelled).status, 'cancelled');
      const run = await until(async () => {
        const got = await api(`${s.url}/runs/${report.run_id}`, 'GET', undefined, auth);
        return got.body.status === 'cancelled' ? got.body : undefined;
      }, 'the run cancelled');
      assert.equal(run.run_id, report.run_id);
      await client.close();
    } finally {
      await s.stop();
    }
  });

  it('at SIGTERM closes the open sessions, the call waiting on a question ends, and the server exits 0', async () => {
    const s = await startServe(['--root', examples, '--token', TOKEN], local.dir);
    let onAsked = () => {};
    const asked = new Promise<void>((resolve) => (onAsked = resolve));
    // The person never answers: the question stays out until the server stops.
    const { client } = await connect(s.url, () => {
      onAsked();
      return new Promise<string>(() => {});
    });
    const call = client.callTool({ name: 'approval', arguments: { input: 'wait for me' } }).then(
      () => 'returned',
      () => 'failed',
    );
    await asked;
    assert.equal(await s.stop(), 0);
    assert.match(s.stderr(), /closed 1 MCP session\(s\)/);
    // The call's stream closed with the session, without an answer: closing the client ends it (else its request timeout would).
    await client.close();
    assert.equal(await call, 'failed');
  });
});
