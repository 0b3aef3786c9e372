/**
 * p50 and p90 of `values` by nearest rank: values that occurred, never an
 * interpolation, so the figures of three runs are figures of those runs.
 * Undefined for no values.
 */
export function p50p90(values: readonly number[]): { p50: number; p90: number } | undefined {
  if (values.length === 0) return undefined;
  const sorted = Float64Array.from(values).sort();
  const at = (p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
  return { p50: at(50), p90: at(90) };
}
