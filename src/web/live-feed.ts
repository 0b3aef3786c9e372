import type { RunEvent } from '../../machines/run-events.js';
import { createLiveTracker, type LiveSnapshot } from './live-snapshot.js';

/** An event of the feed with its sequence number (1, 2, ...), the SSE `id:`. */
export interface NumberedEvent {
  seq: number;
  event: RunEvent;
}

/**
 * One run's events, numbered, for the live page: the snapshot so far, the
 * last `capacity` events for a page that reconnects (EventSource sends the
 * last id it saw), and the pages listening now.
 */
export interface LiveFeed {
  push(event: RunEvent): void;
  snapshot(): LiveSnapshot;
  /** Whether an ask is waiting for its answer. */
  pending(askId: string): boolean;
  /** The events after `seq`, or undefined when some are no longer kept or `seq` is another run's (the page must reload its snapshot). */
  since(seq: number): NumberedEvent[] | undefined;
  /** Calls `listener` with every event from now on; returns the way to stop. */
  subscribe(listener: (e: NumberedEvent) => void): () => void;
}

/** A feed keeping the last `capacity` events (enough for a page that lost its connection for a moment). */
export function createLiveFeed(capacity = 10_000): LiveFeed {
  const tracker = createLiveTracker();
  const kept: NumberedEvent[] = [];
  const listeners = new Set<(e: NumberedEvent) => void>();
  let seq = 0;
  return {
    push(event) {
      const numbered = { seq: ++seq, event };
      tracker.event(numbered.seq, event);
      kept.push(numbered);
      // Dropped in chunks: shifting one at a time would cost the whole array per event.
      if (kept.length > capacity * 1.25) kept.splice(0, kept.length - capacity);
      for (const listener of listeners) listener(numbered);
    },
    snapshot: () => tracker.snapshot(),
    pending: (askId) => tracker.pending(askId),
    since(after) {
      // An id past the last one is another run's (Raymond started again on this port).
      if (after > seq) return undefined;
      if (after === seq) return [];
      const first = kept[0]?.seq ?? seq + 1;
      if (after + 1 < first) return undefined;
      return kept.slice(after + 1 - first);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
