import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { TOKEN_COOKIE, checkRequest, hasToken } from './auth.js';
import { HttpError, readBody, sendError, sendJson } from './http-error.js';
import { openApiDocument } from './openapi.js';
import { servePage } from './page-routes.js';
import { findRoute } from './route-table.js';
import type { ServeContext } from './serve-context.js';

/** Options of the HTTP server beyond the routes' context. */
export interface ServerOptions {
  /** Whether it is bound to loopback: then the `Host` of every request must be loopback too. */
  loopbackOnly: boolean;
  version: string;
  /** Milliseconds a request's headers and body may take to arrive in full. */
  requestTimeoutMs: number;
  /** `/mcp`'s handler (MCP's Streamable HTTP transport), given only requests that passed the checks. */
  mcp?: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
}

/** How long a request may take to arrive by default: room for a 100 MiB upload on a slow link, and no slow body held forever. */
export const REQUEST_TIMEOUT_MS = 120_000;

/** `POST /login`: a form with the token; a right one sets the cookie the page's requests carry. */
async function login(ctx: ServeContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const form = new URLSearchParams((await readBody(req, 16 * 1024)).toString('utf8'));
  const token = form.get('token') ?? '';
  if (ctx.token === undefined) {
    res.writeHead(303, { Location: '/' }).end();
    return;
  }
  const probe = { headers: { authorization: `Bearer ${token}` } } as IncomingMessage;
  if (!hasToken(probe, ctx.token)) throw new HttpError(401, 'unauthorized', 'wrong token');
  res
    .writeHead(303, {
      Location: '/',
      'Set-Cookie': `${TOKEN_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`,
    })
    .end();
}

/**
 * The HTTP server: every request passes the checks of auth.ts (host,
 * token, origin), then goes to its route; every refusal is one JSON object
 * with a stable code. Nothing here polls: idle, the process only waits.
 */
export function createServeServer(ctx: ServeContext, opts: ServerOptions): Server {
  // A request whose headers or body trickle in is answered 408 and closed once its time is up, so slow
  // clients cannot hold connections forever. Only the request's arrival is timed: a response may last
  // (the event streams are long-lived), and the deadlines are checked every second.
  const requestTimeout = opts.requestTimeoutMs;
  const server = createServer(
    {
      requestTimeout,
      headersTimeout: Math.min(30_000, requestTimeout),
      connectionsCheckingInterval: Math.min(1_000, requestTimeout),
    },
    (req, res) => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://server');
        const method = req.method ?? 'GET';
        // The pages check the token themselves: without it, `/` shows the login form and a run's page sends the browser there.
        const open =
          url.pathname === '/' ||
          url.pathname === '/login' ||
          url.pathname === '/openapi.json' ||
          url.pathname.startsWith('/ui/');
        // MCP's streams are read with GET too, and its transport wants every connection's Origin checked.
        const mcp = url.pathname === '/mcp';
        checkRequest(req, {
          token: ctx.token,
          loopbackOnly: opts.loopbackOnly,
          open,
          originOnEveryMethod: mcp,
        });
        if (mcp) {
          if (!opts.mcp) throw new HttpError(404, 'not_found', 'no such endpoint: /mcp');
          return opts.mcp(req, res);
        }
        if (servePage(ctx, req, res, url)) return;
        if (url.pathname === '/login' && method === 'POST') return login(ctx, req, res);
        if (url.pathname === '/openapi.json' && method === 'GET')
          return sendJson(res, 200, openApiDocument(opts.version));
        const { route, params } = findRoute(method, url.pathname);
        await route.handler(ctx, req, res, params, url);
      })().catch((err: unknown) => {
        if (!(err instanceof HttpError))
          ctx.say(
            `internal error on ${req.method} ${req.url}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
          );
        sendError(res, err);
      });
    },
  );
  return server;
}
