import type { IncomingMessage } from 'node:http';

/** Why a request to a loopback server is refused, as an HTTP answer would say it. */
export interface Refusal {
  status: 403;
  code: 'ERR_HOST' | 'ERR_ORIGIN';
  message: string;
}

/**
 * What a server on 127.0.0.1:`port` (the `--inspect` relay and its live
 * page) takes from a browser. Its Host must be this server: a page of
 * another site whose name was made to resolve to 127.0.0.1 (DNS
 * rebinding) sends its own name. An Origin, when there is one, must be
 * this server too: a page of another site may open a WebSocket, or send a
 * POST, to any address, and the browser says whose page it is. Clients
 * that are not browsers (Raymond's own) send no Origin.
 */
export function loopbackGuard(port: number): {
  refusal(req: IncomingMessage, opts?: { origin: boolean }): Refusal | undefined;
} {
  const hosts = new Set([`localhost:${port}`, `127.0.0.1:${port}`]);
  const origins = new Set([...hosts].map((h) => `http://${h}`));
  return {
    refusal(req, opts = { origin: true }) {
      if (!hosts.has(req.headers.host ?? ''))
        return {
          status: 403,
          code: 'ERR_HOST',
          message: 'open the page as localhost or 127.0.0.1',
        };
      const origin = req.headers.origin;
      if (opts.origin && origin !== undefined && !origins.has(origin))
        return {
          status: 403,
          code: 'ERR_ORIGIN',
          message: `requests from ${origin} may not read or change this run`,
        };
      return undefined;
    },
  };
}
