/**
 * Money as Raymond shows it everywhere: cents from $1 up (whole dollars
 * from $1,000), four significant figures below $1, never rounded to zero,
 * never in exponent notation. `$0.00` is shown only for nothing at all.
 */
export function usd(value: number): string {
  if (value === 0 || !Number.isFinite(value)) return '$0.00';
  const sign = value < 0 ? '-' : '';
  const abs = Math.abs(value);
  if (abs >= 999.5) return `${sign}$${abs.toFixed(0)}`;
  if (abs >= 1) return `${sign}$${abs.toFixed(2)}`;
  const figures = Number(abs.toPrecision(4));
  const decimals = Math.max(2, 3 - Math.floor(Math.log10(figures)));
  // Zeros past the fourth figure go, but never below cents.
  return `${sign}$${figures.toFixed(decimals).replace(/(\.\d\d\d*?)0+$/, '$1')}`;
}
