import { toolDetail } from '../../executors/tool-denial.js';

// Reading single fields of stream-json messages (token counts, dates, tool calls): kept apart from
// stream-reader.ts, which follows the stream line by line and decides what each message means.

/** A JSON object of the stream, its fields not yet checked. */
export type Json = Record<string, unknown>;

/** Words by which a result's text says a usage limit was hit (older Claude Code had no structured field). */
export const LIMIT_TEXT =
  /usage limit|limit reached|rate limit|out of (extra )?usage|hit your (\w+ )?limit/i;

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
