/** The supervisor's cap on markdown steps, fed by the accounts' widths (AccountWidth). */
export interface MarkdownCap {
  /** What the backends call with each account's width as it changes. */
  onWidth(backend: string, width: number): void;
  /** Where the sum goes once the supervisor exists (`slots.markdown`). */
  attach(send: (max: number) => void): void;
}

/**
 * Sums each backend's account width for the supervisor, which then grants
 * no more markdown steps at once than the accounts take: a step waiting for
 * its account would hold a slot a script step could use.
 */
export function markdownCap(): MarkdownCap {
  const widths = new Map<string, number>();
  let send = (_max: number) => {};
  return {
    onWidth(backend, width) {
      widths.set(backend, width);
      let sum = 0;
      for (const n of widths.values()) sum += n;
      send(sum);
    },
    attach(to) {
      send = to;
    },
  };
}
