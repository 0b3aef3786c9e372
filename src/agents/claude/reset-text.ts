/** Offsets (hours from UTC) of the zone abbreviations Claude Code's limit notices are seen with. */
const ABBREVIATIONS: Record<string, number> = {
  UTC: 0,
  GMT: 0,
  EST: -5,
  EDT: -4,
  CST: -6,
  CDT: -5,
  MST: -7,
  MDT: -6,
  PST: -8,
  PDT: -7,
  CET: 1,
  CEST: 2,
  BST: 1,
  IST: 5.5,
  JST: 9,
};

const RESETS = /\bresets\s+(?:at\s+)?(\d{1,2})(?::(\d{2}))?\s*(am|pm)?(?:\s*\(([^)]+)\))?/i;

/** Minutes `zone` is ahead of UTC at `at`: an IANA zone through Intl, or a known abbreviation; undefined if neither. */
function zoneOffsetMinutes(zone: string, at: number): number | undefined {
  const abbreviation = ABBREVIATIONS[zone.toUpperCase()];
  if (abbreviation !== undefined) return abbreviation * 60;
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    }).formatToParts(at);
  } catch {
    return undefined;
  }
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'));
  return Math.round((wall - Math.floor(at / 60_000) * 60_000) / 60_000);
}

/**
 * When a usage limit resets, read from a notice that gives it only in words
 * ("You've hit your session limit · resets 3pm (America/Chicago)", "resets
 * at 10:30pm (PST)", "resets 2:40am"): the next such wall-clock time after
 * `now`, in the zone named (an IANA zone or a common abbreviation), or in
 * this machine's zone when none is. Undefined when the text names no time
 * or an unknown zone: the run then waits for nothing it cannot know.
 */
export function resetFromText(text: string, now = Date.now()): number | undefined {
  const m = RESETS.exec(text);
  if (!m) return undefined;
  let hour = Number(m[1]);
  const minute = Number(m[2] ?? 0);
  const meridiem = m[3]?.toLowerCase();
  if (minute > 59 || (meridiem ? hour < 1 || hour > 12 : hour > 23)) return undefined;
  if (meridiem === 'pm' && hour < 12) hour += 12;
  if (meridiem === 'am' && hour === 12) hour = 0;
  const zone = m[4]?.trim();
  const offset =
    zone === undefined ? -new Date(now).getTimezoneOffset() : zoneOffsetMinutes(zone, now);
  if (offset === undefined) return undefined;
  // That wall-clock time today in the zone, or tomorrow when it has passed.
  const local = new Date(now + offset * 60_000);
  let at =
    Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate(), hour, minute) -
    offset * 60_000;
  if (at <= now) at += 24 * 3_600_000;
  return at;
}
