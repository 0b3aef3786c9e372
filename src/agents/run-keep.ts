/** Something a backend keeps between turns of a run: live processes, say. */
export interface Kept {
  /** The run ended here: everything goes. */
  close(): void;
  /** Session `session` will not go on soon: what is kept for it can go. */
  release?(session: string): void;
}

/**
 * What a caller keeps for one run across the executors it makes: a queue
 * worker makes an executor per job (each forwarding to its own job), and a
 * backend's live processes must outlive them. Absent from a runtime, an
 * executor keeps its own and ends them with `close()`.
 */
export interface RunKeep {
  /** The thing kept under `key` (a backend's name and what it is), made on first use. */
  of<T extends Kept>(key: string, make: () => T): T;
}

/** A run's keep: released session by session, closed whole when the run is done here. */
export class RunKeeper implements RunKeep, Kept {
  private readonly kept = new Map<string, Kept>();

  of<T extends Kept>(key: string, make: () => T): T {
    let item = this.kept.get(key);
    if (!item) this.kept.set(key, (item = make()));
    return item as T;
  }

  release(session: string): void {
    for (const item of this.kept.values()) item.release?.(session);
  }

  close(): void {
    for (const item of this.kept.values()) item.close();
    this.kept.clear();
  }
}
