import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from '../serve/http-error.js';
import type { ServeContext } from '../serve/serve-context.js';
import type { McpOptions } from './mcp-server.js';
import type { McpSessions } from './mcp-sessions.js';

/**
 * How long a call waits by default: under the 60 s an SDK client gives a
 * request before it gives up on it, so the run's id always reaches it.
 */
export const DEFAULT_WAIT_SECONDS = 50;

/**
 * `raymond serve`'s `/mcp`, loaded on its first request: the MCP SDK and
 * the sessions (mcp-sessions.ts) are a chunk of their own, so a server no
 * MCP client talks to never loads them.
 */
export class McpEndpoint {
  #sessions: Promise<McpSessions> | undefined;
  #closing = false;

  constructor(
    private readonly ctx: ServeContext,
    private readonly options: McpOptions,
  ) {}

  /** Answers a request of `/mcp` that passed the server's checks. */
  readonly handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (this.#closing)
      throw new HttpError(503, 'shutting_down', 'the server is shutting down; no MCP requests');
    this.#sessions ??= import('./mcp-sessions.js').then(
      (m) => new m.McpSessions(this.ctx, this.options),
    );
    await (await this.#sessions).handle(req, res);
  };

  /** Refuses new requests and closes the open sessions: how many there were. */
  async close(): Promise<number> {
    this.#closing = true;
    // Never loaded, or failed to load: nothing is open.
    const sessions = await this.#sessions?.catch(() => undefined);
    return sessions ? sessions.closeAll() : 0;
  }
}
