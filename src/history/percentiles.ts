/**
 * The p-th percentile (0-100) of `values` by nearest rank: a value that
 * occurred, never an interpolation, so a stat of three runs is one of their
 * figures. Undefined for no values.
 */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.ceil((Math.min(100, Math.max(0, p)) / 100) * sorted.length);
  return sorted[Math.max(0, rank - 1)];
}

/** p50 and p90 of `values`, sorted once. */
export function p50p90(values: readonly number[]): { p50: number; p90: number } | undefined {
  if (values.length === 0) return undefined;
  const sorted = Float64Array.from(values).sort();
  const at = (p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
  return { p50: at(50), p90: at(90) };
}
