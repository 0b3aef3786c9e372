/**
 * What the Anthropic Messages API says of an account's request rate in the
 * headers of every answer (`anthropic-ratelimit-requests-limit`: requests a
 * minute; `-remaining`: requests it takes now), and whether a 429 is a rate
 * limit the gate may wait out or a usage limit it must pass on.
 */

/** Read-only headers as node:http and undici give them (lower-case names). */
export type HeaderBag = Readonly<Record<string, string | string[] | undefined>>;

/** The account's request rate as an answer's headers tell it. */
export interface ToldRate {
  /** Requests a second it allows. */
  perSecond: number;
  /** Requests it takes at once now. */
  remaining: number;
}

function header(headers: HeaderBag, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function count(headers: HeaderBag, name: string): number | undefined {
  const text = header(headers, name);
  if (text === undefined || !/^\d+$/.test(text.trim())) return undefined;
  return Number(text);
}

/** The request rate an answer's headers tell, if they tell it. */
export function toldRate(headers: HeaderBag): ToldRate | undefined {
  const limit = count(headers, 'anthropic-ratelimit-requests-limit');
  const remaining = count(headers, 'anthropic-ratelimit-requests-remaining');
  if (limit === undefined || limit <= 0 || remaining === undefined) return undefined;
  return { perSecond: limit / 60, remaining };
}

/** How long a 429 asks to wait (`retry-after`: seconds, or an HTTP date), in ms; undefined when it does not say. */
export function retryAfterMs(headers: HeaderBag, now: number): number | undefined {
  const text = header(headers, 'retry-after')?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Whether a 429 is a usage limit (a claude.ai login's spent allowance:
 * `anthropic-ratelimit-unified-status: rejected`), which lasts hours and
 * which Claude Code and Raymond must see, not a rate to wait out.
 */
export function isUsageLimit(headers: HeaderBag): boolean {
  return header(headers, 'anthropic-ratelimit-unified-status') === 'rejected';
}
