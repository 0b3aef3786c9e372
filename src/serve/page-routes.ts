import type { IncomingMessage, ServerResponse } from 'node:http';
import { allBackends } from '../agents/registry/registry.js';
import { livePageHtml } from '../web/live-page.js';
import { serveIndexHtml } from '../web/serve-index-page.js';
import { hasToken } from './auth.js';
import { matchPath } from './route-table.js';
import { runOf } from './routes-runs.js';
import type { ServeContext } from './serve-context.js';

/** Where a run's page is: beside the API, so `GET /runs/{id}` stays JSON for every client, whatever its `Accept`. */
export const RUN_PAGE = '/ui/runs/{id}';

/** The pages' headers: no framing, no sniffing, scripts and styles only inline, requests only to this server. */
const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
  'Content-Security-Policy':
    "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'",
};

/** The live page of one run, fed by the server's own endpoints. */
function runPageHtml(id: string): string {
  const api = `/runs/${encodeURIComponent(id)}`;
  return livePageHtml({
    heading: `raymond serve: run ${id}`,
    note: "The server's live page of this run: its agent machines on the workflow's diagram, its asks and its log, from the server's own API.",
    link: { href: '/', text: 'All workflows and runs' },
    uploads: true,
    serve: { home: '/' },
    urls: {
      snapshot: `${api}/snapshot`,
      events: `${api}/output`,
      diagram: `${api}/diagram.svg`,
      answer: `${api}/asks/{ask_id}`,
      askFile: `${api}/asks/{ask_id}/files/{path}`,
      cancel: `${api}/cancel`,
    },
  });
}

/**
 * The web pages of `raymond serve`: `/` (workflows with launch forms, and
 * the runs) and `/ui/runs/{id}` (one run's live page). `/` is open, as it
 * shows the login form when the server has a token; a run's page without
 * the token sends the browser to `/`. Answers false for any other request.
 */
export function servePage(
  ctx: ServeContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  if (url.pathname === '/') {
    res.writeHead(200, PAGE_HEADERS).end(
      serveIndexHtml({
        backends: Object.fromEntries(
          allBackends().map((b) => [b.name, { models: b.models, efforts: b.efforts }]),
        ),
        defaultBudgetUsd: ctx.defaultBudgetUsd,
        runPage: RUN_PAGE,
      }),
    );
    return true;
  }
  const params = matchPath(RUN_PAGE, url.pathname);
  if (!params) return false;
  if (ctx.token !== undefined && !hasToken(req, ctx.token)) {
    res.writeHead(303, { Location: '/' }).end();
    return true;
  }
  const run = runOf(ctx, params.id!);
  res.writeHead(200, PAGE_HEADERS).end(runPageHtml(run.id));
  return true;
}
