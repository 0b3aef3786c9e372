import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { proxySettings } from '../proxied-fetch.js';

/** An upstream answer as it came: its status, headers and body, neither decoded nor buffered. */
export interface Upstream {
  status: number;
  headers: IncomingHttpHeaders;
  body: Readable;
}

/** Headers that belong to one connection, never forwarded (RFC 9110 7.6.1), and the host the gate was called by. */
const HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
]);

/** The end-to-end headers of a request or an answer. */
export function endToEnd(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP.has(k)) out[k] = v;
  return out;
}

type Undici = typeof import('undici');
let loaded:
  Promise<{ request: Undici['request']; dispatcher: import('undici').Dispatcher }> | undefined;

/** undici, and one dispatcher for the process: through the environment's proxy when it names one. */
function undici() {
  loaded ??= import('undici').then((m) => {
    // Bundled, undici (CommonJS) is only the default export of its chunk; unbundled, Node gives both.
    const u = (m.default as typeof m.default | undefined) ?? m;
    const proxy = proxySettings();
    // The agent CLI keeps its own timeouts: a model's answer may take minutes to begin or to end.
    const timeouts = { bodyTimeout: 0, headersTimeout: 0 };
    const dispatcher = proxy
      ? new u.EnvHttpProxyAgent({ ...proxy, ...timeouts, proxyTunnel: false })
      : new u.Agent(timeouts);
    return { request: u.request, dispatcher };
  });
  return loaded;
}

/**
 * Sends one request upstream as the agent CLI sent it to the gate, and
 * gives back the answer unread: a streamed answer streams on, and a
 * compressed one stays compressed for the client that asked for it.
 */
export async function forward(
  url: string,
  request: { method: string; headers: IncomingHttpHeaders; body: Buffer },
  signal: AbortSignal,
): Promise<Upstream> {
  const { request: send, dispatcher } = await undici();
  const method = request.method;
  const answer = await send(url, {
    method,
    headers: endToEnd(request.headers),
    ...(request.body.length > 0 || !['GET', 'HEAD'].includes(method) ? { body: request.body } : {}),
    signal,
    dispatcher,
  });
  return {
    status: answer.statusCode,
    headers: answer.headers,
    body: answer.body,
  };
}
