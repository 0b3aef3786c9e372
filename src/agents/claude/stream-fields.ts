import { resetFromText } from './reset-text.js';
import { toolDetail } from '../../executors/tool-denial.js';

// Reading single fields of stream-json messages (token counts, dates, tool calls): kept apart from
// stream-reader.ts, which follows the stream line by line and decides what each message means.

/** A JSON object of the stream, its fields not yet checked. */
export type Json = Record<string, unknown>;

/** Words by which a result's text says a usage limit was hit (older Claude Code had no structured field). */
const LIMIT_TEXT = /usage limit|limit reached|out of (extra )?usage|hit your (\w+ )?limit/i;

/** The tokens a `usage` (or one model's `modelUsage`) entry counts, in either spelling of its keys. */
export function tokens(u: unknown): number {
  if (!u || typeof u !== 'object') return 0;
  const o = u as Record<string, unknown>;
  let sum = 0;
  for (const key of [
    'input_tokens',
    'output_tokens',
    'cache_read_input_tokens',
    'cache_creation_input_tokens',
    'inputTokens',
    'outputTokens',
    'cacheReadInputTokens',
    'cacheCreationInputTokens',
  ]) {
    const v = o[key];
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0) sum += v;
  }
  return sum;
}

/** A tool call as progress shows it: its name and a short detail of its input. */
export function describeTool(name: string, input: Json): string {
  const detail = toolDetail(input).slice(0, 120);
  return detail ? `[${name}] ${detail}` : `[${name}]`;
}

/** Epoch seconds or milliseconds, or an ISO date, to epoch milliseconds. */
export function toEpochMs(v: unknown): number | undefined {
  if (typeof v === 'number') return v < 1e12 ? v * 1000 : v;
  if (typeof v === 'string' && !Number.isNaN(Date.parse(v))) return Date.parse(v);
  return undefined;
}

/**
 * What an `api_retry` line says of the account: a request refused for its
 * rate (429) or the API's load (529), and Claude Code's wait before the
 * retry when it gave one; null for any other retry.
 */
export function limitSignal(msg: Json): { status: 429 | 529; delayMs: number | null } | null {
  const status =
    msg.error_status === 429 || msg.error === 'rate_limit'
      ? 429
      : msg.error_status === 529 || msg.error === 'overloaded'
        ? 529
        : null;
  if (status === null) return null;
  const delay = msg.retry_delay_ms;
  return {
    status,
    delayMs: typeof delay === 'number' && Number.isFinite(delay) && delay >= 0 ? delay : null,
  };
}

/**
 * The usage limit a result's text tells of (older Claude Code had no
 * structured field), with its reset: a short final text, since a real answer
 * that merely talks about limits is long or carries a transition tag.
 */
export function limitFromText(text: string): { message: string; resetsAt?: number } | null {
  if (text.length >= 400 || text.includes('<') || !LIMIT_TEXT.test(text)) return null;
  const epoch = /\|(\d{9,13})\b/.exec(text)?.[1];
  const resetsAt = epoch ? toEpochMs(Number(epoch)) : resetFromText(text);
  return { message: text.split('\n')[0]!, ...(resetsAt === undefined ? {} : { resetsAt }) };
}
