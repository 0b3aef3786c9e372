import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LiveFeed, NumberedEvent } from './live-feed.js';
import { livePageHtml, type LivePageOptions } from './live-page.js';
import { loopbackGuard } from './loopback-guard.js';

/** What the page may do to the run; absent until the run has started. */
export interface LiveControl {
  answer(askId: string, text: string): void;
  cancel(): void;
}

/** The live page's routes under a prefix, for a server that also serves other things. */
export interface LiveRoutes {
  /** Answers the request if it is one of the live page's; false otherwise. */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  /** Resolves once a page is listening to the event stream. */
  viewer(): Promise<void>;
  /** Ends every event stream (what was sent is flushed first, for at most a second). */
  close(): Promise<void>;
}

export interface LiveRoutesOptions {
  /** Path prefix, e.g. `/live`: the page is there, the rest below it. */
  base: string;
  /** The port the server listens on: requests for another host (DNS rebinding) and from other origins are refused. */
  port: number;
  feed: LiveFeed;
  /** The workflow's diagram (SVG), made on first request; undefined: none. */
  diagram: () => Promise<string | undefined>;
  control: () => LiveControl | undefined;
  page: Omit<LivePageOptions, 'urls'>;
}

/** Largest answer body taken. */
const MAX_BODY = 1 << 20;

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify(body));
}

function refuse(res: ServerResponse, status: number, code: string, error: string): void {
  json(res, status, { error, code });
}

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        resolve(undefined);
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * The live page served by the run itself (`--inspect`): `BASE` the page,
 * `BASE/snapshot`, `BASE/events` (SSE with ids; a reconnect's
 * Last-Event-ID or `?since=` resumes), `BASE/diagram.svg`, and the two
 * POSTs that change the run, `BASE/asks/ASK_ID` (`{"response": "..."}`, as
 * ray's `POST /runs/{id}/asks/{ask_id}`) and `BASE/cancel`. Loopback only:
 * the Host must be this server, and a POST must be JSON from the page's
 * own origin, so another web site open in the browser cannot answer or
 * cancel.
 */
export function createLiveRoutes(opts: LiveRoutesOptions): LiveRoutes {
  const { base, feed } = opts;
  const guard = loopbackGuard(opts.port);
  const streams = new Set<ServerResponse>();
  const waiting: Array<() => void> = [];
  let svg: Promise<string | undefined> | undefined;
  const page = livePageHtml({
    ...opts.page,
    urls: {
      snapshot: `${base}/snapshot`,
      events: `${base}/events`,
      diagram: `${base}/diagram.svg`,
      answer: `${base}/asks/{ask_id}`,
      cancel: `${base}/cancel`,
    },
  });

  const events = (req: IncomingMessage, res: ServerResponse, query: URLSearchParams) => {
    const from = Number(req.headers['last-event-id'] ?? query.get('since') ?? 0);
    const missed = Number.isSafeInteger(from) && from >= 0 ? feed.since(from) : undefined;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
    });
    res.write('retry: 1000\n\n');
    const send = (e: NumberedEvent) =>
      res.write(`id: ${e.seq}\ndata: ${JSON.stringify(e.event)}\n\n`);
    if (!missed) {
      res.end('event: reset\ndata: {}\n\n');
      return;
    }
    missed.forEach(send);
    const stop = feed.subscribe(send);
    streams.add(res);
    res.on('close', () => {
      stop();
      streams.delete(res);
    });
    waiting.splice(0).forEach((resolve) => resolve());
  };

  const post = async (req: IncomingMessage, res: ServerResponse, path: string) => {
    // A GET's Origin is not checked: a page elsewhere cannot read the answer (no CORS header), and the Host check stops rebinding.
    const refused = guard.refusal(req);
    if (refused) return refuse(res, refused.status, refused.code, refused.message);
    if (!/^application\/json\b/.test(req.headers['content-type'] ?? ''))
      return refuse(
        res,
        415,
        'ERR_CONTENT_TYPE',
        'send JSON ({"response": "..."}); files can be sent to a run only through raymond serve',
      );
    const text = await readBody(req);
    if (text === undefined)
      return refuse(res, 413, 'ERR_TOO_LARGE', `the body is over ${MAX_BODY} bytes`);
    const control = opts.control();
    if (!control) return refuse(res, 409, 'ERR_NOT_STARTED', 'the run has not started yet');
    const run_id = feed.snapshot().run.id;
    if (path === '/cancel') {
      control.cancel();
      return json(res, 202, { run_id, status: 'cancelling' });
    }
    const ask_id = decodeURIComponent(path.slice('/asks/'.length));
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return refuse(res, 400, 'ERR_BAD_JSON', 'the body is not JSON');
    }
    const response = (body as { response?: unknown } | null)?.response;
    if (typeof response !== 'string')
      return refuse(res, 400, 'ERR_BAD_JSON', 'the body needs "response", a string');
    if (!feed.pending(ask_id))
      return refuse(
        res,
        404,
        'ERR_NO_SUCH_ASK',
        `no pending ask ${ask_id} (answered already, or timed out)`,
      );
    control.answer(ask_id, response);
    return json(res, 200, { run_id, ask_id, status: 'resumed' });
  };

  const route = async (
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: URLSearchParams,
  ) => {
    const refused = guard.refusal(req, { origin: false });
    if (refused) return refuse(res, refused.status, refused.code, refused.message);
    if (req.method === 'POST' && (path === '/cancel' || /^\/asks\/[^/]+$/.test(path)))
      return post(req, res, path);
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return refuse(res, 405, 'ERR_METHOD', `${req.method} is not taken here`);
    switch (path) {
      case '':
      case '/':
        res.writeHead(200, {
          'Content-Type': 'text/html; charset=utf-8',
          'Cache-Control': 'no-store',
          'Content-Security-Policy':
            "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:",
        });
        return res.end(page);
      case '/snapshot':
        return json(res, 200, feed.snapshot());
      case '/events':
        return events(req, res, query);
      case '/diagram.svg': {
        const diagram = await (svg ??= opts.diagram().catch(() => undefined));
        if (diagram === undefined)
          return refuse(res, 404, 'ERR_NO_DIAGRAM', 'no diagram for this run');
        res.writeHead(200, { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'no-store' });
        return res.end(diagram);
      }
      default:
        return refuse(res, 404, 'ERR_NOT_FOUND', `no such page: ${base}${path}`);
    }
  };

  return {
    handle(req, res) {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname !== base && !url.pathname.startsWith(`${base}/`)) return false;
      route(req, res, url.pathname.slice(base.length), url.searchParams).catch((err: unknown) => {
        if (!res.headersSent)
          refuse(res, 500, 'ERR_INTERNAL', err instanceof Error ? err.message : String(err));
        else res.end();
      });
      return true;
    },
    viewer: () =>
      streams.size > 0 ? Promise.resolve() : new Promise((resolve) => waiting.push(resolve)),
    close: async () => {
      const ended = [...streams].map((res) => new Promise<void>((resolve) => res.end(resolve)));
      await Promise.race([Promise.all(ended), new Promise((resolve) => setTimeout(resolve, 1000))]);
    },
  };
}
