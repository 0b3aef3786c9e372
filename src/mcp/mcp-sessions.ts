import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { HttpError, MAX_JSON_BODY } from '../serve/http-error.js';
import type { ServeContext } from '../serve/serve-context.js';
import { createMcpServer, type McpOptions } from './mcp-server.js';

/** How long waiting calls get to send their answers at shutdown before the sessions close. */
const ANSWER_GRACE_MS = 200;

/** The methods of the transport: a message (POST), the session's stream (GET), its end (DELETE). */
const METHODS = new Set(['POST', 'GET', 'DELETE']);

/** One client's session of `/mcp`: its own MCP server over the serve context, and the transport it answers through. */
interface Session {
  server: Server;
  transport: StreamableHTTPServerTransport;
  /** Its requests whose responses are still open (a call, its stream). */
  busy: number;
  /** Closes it once it has been idle for long. */
  idle?: NodeJS.Timeout;
}

/**
 * How long a session with no request and no open stream is kept: a client
 * that went away without its DELETE (Claude Code sends none when it exits)
 * leaves no session behind for ever; one that comes back after it gets a
 * 404 and initializes a new one, as the transport has clients do.
 */
export const SESSION_IDLE_MS = 60 * 60 * 1000;

/**
 * The sessions of `raymond serve`'s `/mcp` (MCP's Streamable HTTP
 * transport, stateful): an initialize POST opens one, with an id the
 * client sends back as `Mcp-Session-Id`; its DELETE, or the server's
 * shutdown, closes it. Every session's server shares the serve context,
 * so a run a tool call starts is one of the pool's runs (on the page, in
 * `GET /runs`), and a run outlives the session that started it. Requests
 * reach this only after the server's checks (token, host, origin).
 */
export class McpSessions {
  readonly #open = new Map<string, Session>();
  /** Aborted at shutdown: calls still waiting for a run answer before their sessions close. */
  readonly #closing = new AbortController();

  constructor(
    private readonly ctx: ServeContext,
    private readonly options: McpOptions,
    private readonly idleMs = SESSION_IDLE_MS,
  ) {}

  /** Answers one request of `/mcp` (POST, GET or DELETE), in its session or opening one. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!METHODS.has(req.method ?? ''))
      throw new HttpError(405, 'method_not_allowed', `${req.method} is not allowed on /mcp`);
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string' && id !== '') {
      const session = this.#open.get(id);
      // 404 is the transport's word for "start a new session": clients do so on it.
      if (!session)
        throw new HttpError(
          404,
          'session_not_found',
          `no MCP session "${id}" on this server (closed, or the server restarted): initialize a new one`,
        );
      this.#track(session, res);
      return session.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST')
      throw new HttpError(
        400,
        'session_required',
        `${req.method} /mcp needs the Mcp-Session-Id header of a session; a session starts with an initialize POST`,
      );
    return this.#start(req, res);
  }

  /** A POST without a session: an initialize request opens one; anything else is refused by the transport, and nothing is kept. */
  async #start(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const server = createMcpServer(this.ctx, { ...this.options, closing: this.#closing.signal });
    let id: string | undefined;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      maxRequestBodySize: MAX_JSON_BODY,
      onsessioninitialized: (sid) => {
        id = sid;
        const session: Session = { server, transport, busy: 0 };
        this.#open.set(sid, session);
        this.#track(session, res);
      },
    });
    server.oninitialized = () => {
      const client = server.getClientVersion();
      this.ctx.say(
        `MCP session ${id} opened${client ? ` by ${client.name} ${client.version}` : ''}`,
      );
    };
    // A DELETE closes the transport, and the server with it; so does the server's shutdown.
    server.onclose = () => {
      if (id === undefined) return;
      clearTimeout(this.#open.get(id)?.idle);
      if (this.#open.delete(id)) this.ctx.say(`MCP session ${id} closed`);
    };
    await server.connect(transport);
    try {
      await transport.handleRequest(req, res);
    } finally {
      if (transport.sessionId === undefined) await server.close().catch(() => {});
    }
  }

  /** Counts a request of a session until its response closes (answered, or its client gone); the last one arms the idle timer. */
  #track(session: Session, res: ServerResponse): void {
    session.busy++;
    clearTimeout(session.idle);
    res.once('close', () => {
      if (--session.busy > 0) return;
      session.idle = setTimeout(() => void session.server.close().catch(() => {}), this.idleMs);
      session.idle.unref();
    });
  }

  /** Closes every session (their calls end; their runs go on in the pool): how many there were. */
  async closeAll(): Promise<number> {
    const all = [...this.#open.values()];
    // Waiting calls answer first (their runs stay resumable); their answers are written before the streams close.
    this.#closing.abort();
    await new Promise((resolve) => setTimeout(resolve, ANSWER_GRACE_MS));
    await Promise.all(all.map((s) => s.server.close().catch(() => {})));
    return all.length;
  }
}
