/** One numbered server-sent event: its `id:` and the JSON of its `data:`. */
export interface NumberedEvent {
  id: number;
  data: string;
}

/** Events kept per run for `Last-Event-ID` and late subscribers. */
export const EVENT_BUFFER_SIZE = 2000;

/**
 * A run's recent events, numbered from 1, and whoever listens to them. It
 * keeps the last EVENT_BUFFER_SIZE events, so memory stays bounded however
 * long a run goes; a client that asks for events older than that is told
 * how many it missed (`replay` returns the gap).
 */
export class EventBuffer {
  private readonly events: NumberedEvent[] = [];
  private next = 1;
  private readonly listeners = new Set<(e: NumberedEvent | null) => void>();
  /** Set once the run ended: listeners are told, and new ones get the end at once. */
  ended = false;

  constructor(private readonly size = EVENT_BUFFER_SIZE) {}

  /** The id of the last event so far (0: none). */
  get lastId(): number {
    return this.next - 1;
  }

  push(data: string): void {
    const event = { id: this.next++, data };
    this.events.push(event);
    if (this.events.length > this.size) this.events.shift();
    for (const l of this.listeners) l(event);
  }

  /** The run ended: every listener gets `null`, and so will any that comes later. */
  end(): void {
    this.ended = true;
    for (const l of this.listeners) l(null);
    this.listeners.clear();
  }

  /** The kept events after `lastSeen`, and how many events after it are no longer kept. */
  replay(lastSeen: number): { events: NumberedEvent[]; missed: number } {
    const events = this.events.filter((e) => e.id > lastSeen);
    const first = events[0]?.id ?? this.next;
    return { events, missed: Math.max(0, first - lastSeen - 1) };
  }

  /** Listens to new events (`null` at the end); returns how to stop. */
  listen(listener: (e: NumberedEvent | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
