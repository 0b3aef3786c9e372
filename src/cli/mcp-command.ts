import { Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { DEFAULT_WAIT_SECONDS } from '../mcp/mcp-endpoint.js';
import { createMcpServer } from '../mcp/mcp-server.js';
import { EXIT } from './exit-codes.js';
import { openServing, type ServingFlags } from './serve-setup.js';

/** Flags of `raymond mcp`. */
export interface McpFlags extends ServingFlags {
  /** The longest a tool call waits for its run, in seconds. */
  wait?: number;
}

/** How long running steps get to finish once the client went away. */
const CLOSING_PATIENCE_MS = 1_000;

const say = (line: string) => process.stderr.write(`raymond mcp: ${line}\n`);

/**
 * Standard output is the protocol's: the transport gets the real stream,
 * and anything else that writes to `process.stdout` (a library, a stray
 * message) goes to standard error instead of corrupting it.
 */
function protocolStdout(): Writable {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr);
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      write(chunk, (err?: Error | null) => done(err ?? null));
    },
  });
}

/**
 * `raymond mcp`: the workflows of `--root` folders as the tools of an MCP
 * server on stdin/stdout, with its runs in `.raymond/mcp-state/` (resumed
 * at the next start when the client goes away mid-run).
 */
export async function mcpCommand(flags: McpFlags, version: string): Promise<number> {
  const out = protocolStdout();
  const { ctx, config, poolDir, notifier } = await openServing(flags, 'mcp', 'mcp-state', say);
  const workflows = await ctx.registry.rescan();
  await ctx.pool.recover();
  const closing = new AbortController();
  const server = createMcpServer(ctx, {
    closing: closing.signal,
    version,
    waitSeconds: flags.wait ?? config.serve.mcp_wait ?? DEFAULT_WAIT_SECONDS,
  });
  const transport = new StdioServerTransport(process.stdin, out);
  const resumed = ctx.pool.unfinished().length;
  // The client going away (stdin closed) or a signal ends the server; the runs stay resumable.
  const ended = new Promise<string>((done) => {
    process.stdin.once('end', () => done('the client closed stdin'));
    process.stdin.once('close', () => done('the client closed stdin'));
    process.once('SIGTERM', () => done('SIGTERM'));
    process.once('SIGINT', () => done('SIGINT'));
    transport.onclose = () => done('the connection closed');
  });
  await server.connect(transport);
  say(
    `serving ${workflows.length} workflow(s) over stdio; runs in ${poolDir} (${resumed} resumed)`,
  );
  const why = await ended;
  // Calls still waiting answer now, while the client may still read them.
  closing.abort();
  const live = ctx.pool.unfinished().length;
  say(
    `${why}: stopping${live > 0 ? `; ${live} unfinished run(s) stay resumable and are resumed at the next start` : ''}`,
  );
  // A client that goes away waits a moment, then kills the server (the SDK's: 2 s, SIGTERM, 2 s, SIGKILL):
  // running steps get a second to finish, and a signal meanwhile stops them at once.
  const now = () => void ctx.pool.shutdown(0);
  process.on('SIGTERM', now);
  process.on('SIGINT', now);
  await ctx.pool.shutdown(CLOSING_PATIENCE_MS);
  await server.close().catch(() => {});
  await notifier?.close();
  return EXIT.completed;
}
