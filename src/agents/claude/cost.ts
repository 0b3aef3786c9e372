import type { StreamSummary } from './stream-summary.js';

/**
 * The true cost of one invocation. Claude Code's `total_cost_usd` is, in
 * recent versions, cumulative over the session's whole history (and a
 * `--fork-session` branch starts from its parent's total); older versions
 * report the invocation alone. `modelUsage` follows the same rule while
 * `usage` is always per invocation, so comparing the two tells which one
 * this binary does. `previous` is the last total known for the session this
 * turn continued from (undefined for a fresh session).
 */
export function invocationCost(
  summary: StreamSummary,
  previous: number | undefined,
  parentUnknown = false,
): number {
  const total = summary.totalCostUsd ?? 0;
  const cumulative = summary.reportedTokens > summary.invocationTokens;
  // A branch of a session whose total Raymond never saw (the user's, --continue-session): the turn's
  // share of the cumulative figure, by its tokens, rather than the user's whole session charged to the run.
  if (parentUnknown && cumulative)
    return (total * summary.invocationTokens) / summary.reportedTokens;
  if (previous === undefined) return total;
  // A cumulative figure never shrinks; if it did, the binary reported the invocation alone.
  if (cumulative && total >= previous) return total - previous;
  return total;
}
