/**
 * Nearest-rank percentile on a sorted copy, as src/history/percentiles.ts
 * computes it. Kept here until that module is on this branch.
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}
