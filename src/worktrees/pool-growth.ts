/** What the pool knows when an agent waits for a folder. */
export interface GrowthFigures {
  /** Folders of the repository now: held and free (none free while agents wait). */
  alive: number;
  /** Agents waiting for a folder. */
  waiting: number;
  /** How long the last new folder took to make, its first checkout included; undefined before one was made. */
  createMs?: number;
  /** How long agents held their folders, on average, once some gave theirs back. */
  holdMs?: number;
  /** How long the agent holding a folder the longest has held it so far. */
  oldestHoldMs?: number;
}

/**
 * When to make one more folder: 0 now, a number of ms from now, or Infinity
 * (not until something changes). With `k` folders busy for `H` ms per agent
 * and `n` agents waiting, the work left takes about `n·H/k`; one more
 * folder, ready after `C` ms, pays when `n·H > k·C`. So a pool whose
 * checkouts are slow next to its agents' work stays small (one reused
 * folder beats several checkouts), and agents that work for minutes, as
 * Claude Code turns do, soon get a folder each (up to the step slots).
 * `H` is not known before an agent gives its folder back, so the longest
 * hold so far stands in for it: the pool grows once that alone says it
 * pays, without waiting for an agent to finish.
 */
export function growDelayMs(f: GrowthFigures): number {
  if (f.waiting === 0) return Number.POSITIVE_INFINITY;
  if (f.alive === 0) return 0;
  // Folders found on disk by a resumed run have no known cost: growing as needed is the safe guess.
  const pays = (f.alive * (f.createMs ?? 0)) / f.waiting;
  const hold = Math.max(f.holdMs ?? 0, f.oldestHoldMs ?? 0);
  if (hold >= pays) return 0;
  return f.oldestHoldMs === undefined ? Number.POSITIVE_INFINITY : pays - f.oldestHoldMs;
}

/** A running average that weighs recent holds more (agents late in a run may differ from early ones). */
export function averageHold(previous: number | undefined, latest: number): number {
  return previous === undefined ? latest : 0.7 * previous + 0.3 * latest;
}
