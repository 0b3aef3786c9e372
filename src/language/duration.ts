import { RaymondError } from '../errors.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/y;
/**
 * The longest duration taken: 100 years. An ask's deadline is a date, and a
 * date past the year 275,760 is no date at all ("Invalid time value").
 */
const MAX_DAYS = 36_500;
const MAX_MS = MAX_DAYS * UNIT_MS.d!;

/**
 * A duration as `<ask timeout="...">` writes it, in milliseconds: numbers
 * with units `ms`, `s`, `m`, `h`, `d`, one after the other (`90s`, `15m`,
 * `24h`, `2d`, `1h30m`), as Go's durations read, plus days.
 * @throws RaymondError ERR_TAG_PARSE naming `file` for anything else, a duration of 0 or one over 100 years.
 */
export function parseDuration(text: string, what: string, file: string): number {
  const bad = (why: string) =>
    new RaymondError('ERR_TAG_PARSE', `${what}="${text}" ${why}`, { file });
  const value = text.trim();
  if (value === '') throw bad('is empty: write a duration such as 90s, 15m, 24h or 2d');
  let ms = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < value.length) {
    const at = PART.lastIndex;
    const m = PART.exec(value);
    if (!m || m.index !== at)
      throw bad(
        'is not a duration: write a number and a unit (ms, s, m, h, d), such as 90s, 15m, 24h or 2d',
      );
    ms += Number(m[1]) * UNIT_MS[m[2]!]!;
  }
  if (ms <= 0) throw bad('is no time at all');
  if (!(ms <= MAX_MS)) throw bad(`is too long: at most ${MAX_DAYS}d (100 years)`);
  return Math.round(ms);
}
