import type { RunEvent } from './run-events.js';

type WidthChanged = Extract<RunEvent, { type: 'width.changed' }>;

/**
 * How a change of an account's width reads, the same on the terminal, in
 * `--status` and on the serve page: "claude: rate limited: 7 at once, was 50",
 * "claude: paced at 30 requests a minute (the API's limit); 8 at once".
 */
export function widthText(e: Omit<WidthChanged, 'type'>): string {
  switch (e.why) {
    case 'rate-limited':
      return `${e.backend}: rate limited: ${e.width} at once, was ${e.was}`;
    case 'overloaded':
      return `${e.backend}: API overloaded: ${e.width} at once, was ${e.was}`;
    case 'recovering':
      return `${e.backend}: recovering: ${e.width} at once (at most ${e.ceiling})`;
    case 'usage-limit':
      return `${e.backend}: usage limit: no turn starts until ${e.until ?? 'its reset'}`;
    case 'paced':
      return `${e.backend}: paced at ${e.perMinute ?? '?'} requests a minute (${e.told ? "the API's limit" : 'learned from its refusals'}); ${e.width} at once`;
  }
}
