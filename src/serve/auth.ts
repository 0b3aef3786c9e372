import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-error.js';

/** The cookie `POST /login` sets for the page. */
export const TOKEN_COOKIE = 'raymond_token';

/** Whether a host name or address is this machine's loopback. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(?:\.\d{1,3}){3}$/.test(h);
}

/** A fresh token: 32 random bytes, URL-safe. */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A cookie's value; one whose escapes do not decode (`%E0%A4%A`) is no token at all, so the request is a 401, not our failure. */
function cookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k !== name) continue;
    try {
      return decodeURIComponent(v.join('='));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Whether a request carries the token: `Authorization: Bearer T`, or the login cookie. */
export function hasToken(req: IncomingMessage, token: string): boolean {
  const auth = req.headers.authorization ?? '';
  const bearer = /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim();
  if (bearer !== undefined && same(bearer, token)) return true;
  const c = cookie(req, TOKEN_COOKIE);
  return c !== undefined && same(c, token);
}

/** Methods that change nothing: the only ones a page of another origin may send. */
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The checks every request passes before its route runs:
 * - bound to loopback, the `Host` must name loopback too, so a page of
 *   another site that got its name to resolve here (DNS rebinding) is refused;
 * - with a token, the token (`/login` and the page itself excepted);
 * - a request that changes anything (any request, with
 *   `originOnEveryMethod`) is refused when its `Origin` (or
 *   `Sec-Fetch-Site: cross-site`) says another site's page sent it.
 */
export function checkRequest(
  req: IncomingMessage,
  opts: {
    token: string | undefined;
    loopbackOnly: boolean;
    open: boolean;
    originOnEveryMethod?: boolean;
  },
): void {
  const host = req.headers.host ?? '';
  const hostName = host.replace(/:\d+$/, '');
  if (opts.loopbackOnly && !isLoopback(hostName))
    throw new HttpError(403, 'bad_host', `Host "${host}" is not this server's loopback address`);
  if (opts.token !== undefined && !opts.open && !hasToken(req, opts.token)) {
    throw new HttpError(
      401,
      'unauthorized',
      'this server needs its token: Authorization: Bearer TOKEN, or log in at /login',
    );
  }
  if (!opts.originOnEveryMethod && SAFE.has(req.method ?? 'GET')) return;
  const refused = opts.originOnEveryMethod
    ? 'may not reach this endpoint'
    : 'may not change anything here';
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== 'null') {
    let originHost: string;
    try {
      originHost = new URL(origin).host;
    } catch {
      originHost = '';
    }
    if (originHost.toLowerCase() !== host.toLowerCase())
      throw new HttpError(403, 'cross_origin', `a request from ${origin} ${refused}`);
  } else if (origin === 'null' || req.headers['sec-fetch-site'] === 'cross-site') {
    throw new HttpError(403, 'cross_origin', `a request from another site ${refused}`);
  }
}
