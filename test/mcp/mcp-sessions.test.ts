import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpSessions } from '../../src/mcp/mcp-sessions.js';
import { sendError } from '../../src/serve/http-error.js';
import type { ServeContext } from '../../src/serve/serve-context.js';
import { startServer, type TestServer } from '../helpers/http-server.js';
import { until } from '../helpers/serve.js';

// The sessions of /mcp without the rest of the server: the handshake needs no workflow and no run.
const lines: string[] = [];
const ctx = { say: (line: string) => lines.push(line) } as unknown as ServeContext;
const servers: TestServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

async function serve(idleMs: number): Promise<{ url: URL; sessions: McpSessions }> {
  const sessions = new McpSessions(ctx, { version: '0.0.0-test', waitSeconds: 1 }, idleMs);
  const server = await startServer((req, res) => {
    sessions.handle(req, res).catch((err: unknown) => sendError(res, err));
  });
  servers.push(server);
  return { url: new URL(`${server.url}/mcp`), sessions };
}

async function connect(url: URL): Promise<{ client: Client; id: string }> {
  const transport = new StreamableHTTPClientTransport(url);
  const client = new Client({ name: 'sessions-test', version: '1' });
  await client.connect(transport);
  return { client, id: transport.sessionId! };
}

describe('MCP sessions over HTTP', () => {
  it('opens a session per client and closes them all at shutdown', async () => {
    const { url, sessions } = await serve(60_000);
    const a = await connect(url);
    const b = await connect(url);
    assert.notEqual(a.id, b.id);
    assert.ok(lines.includes(`MCP session ${a.id} opened by sessions-test 1`), lines.join('\n'));
    assert.equal(await sessions.closeAll(), 2);
    assert.ok(lines.includes(`MCP session ${a.id} closed`));
    assert.ok(lines.includes(`MCP session ${b.id} closed`));
    assert.equal(await sessions.closeAll(), 0);
    await a.client.close();
    await b.client.close();
  });

  it('closes a session whose client went away without its DELETE once it has been idle', async () => {
    // Long enough that a loaded machine's handshake (initialize, then its notification) never idles out.
    const { url, sessions } = await serve(1000);
    const { client, id } = await connect(url);
    // Closing the client drops its stream and sends no DELETE, as a client that exits does.
    await client.close();
    await until(async () => lines.includes(`MCP session ${id} closed`), 'the idle session closed');
    assert.equal(await sessions.closeAll(), 0);
  });
});
