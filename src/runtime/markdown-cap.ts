import type { RunEvent } from '../../machines/run-events.js';
import type { SupervisorEvent } from '../../machines/supervisor-types.js';

type WidthChanged = Extract<RunEvent, { type: 'width.changed' }>;

/** What the accounts' widths tell the supervisor: its cap on markdown steps, and each width for the state file. */
export interface MarkdownCap {
  /** What the backends call with each account's width as it changes. */
  onWidth(backend: string, width: number): void;
  /** A `width.changed` of the run's stream: kept in the state file, for `--status`; a queued run's cap follows it. */
  noted(e: WidthChanged): void;
  /** Where the sum and the changes go once the supervisor exists (`slots.markdown`, `account.width`). */
  attach(send: (e: SupervisorEvent) => void): void;
}

/**
 * Sums each backend's account width for the supervisor, which then grants
 * no more markdown steps at once than the accounts take: a step waiting for
 * its account would hold a slot a script step could use. Passes each
 * change on too, which the state file keeps.
 */
export function markdownCap(
  /** `--queue`: the widths are the workers', told only by their events. */
  fromEvents = false,
): MarkdownCap {
  const widths = new Map<string, number>();
  let send = (_e: SupervisorEvent) => {};
  return {
    onWidth(backend, width) {
      widths.set(backend, width);
      let sum = 0;
      for (const n of widths.values()) sum += n;
      send({ type: 'slots.markdown', max: sum });
    },
    noted({ backend, width, was, ceiling, why, until, perMinute, told }) {
      // A usage limit pauses the run's turns instead of narrowing its cap.
      if (fromEvents && why !== 'usage-limit') this.onWidth(backend, width);
      const paced = perMinute !== undefined ? { perMinute, told: told === true } : {};
      const now = { width, was, ceiling, why, ...paced, at: new Date().toISOString() };
      send({ type: 'account.width', backend, width: until ? { ...now, until } : now });
    },
    attach(to) {
      send = to;
    },
  };
}
