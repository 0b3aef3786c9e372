import { columnsOf, padToColumns } from './text-columns.js';

/**
 * A table as plain text: a header row, then rows, columns two spaces apart,
 * widths by terminal columns (wide characters count two). Columns whose
 * header is in `right` are right-aligned (figures), the rest left-aligned;
 * the last column is not padded, so no line ends in spaces.
 */
export function textTable(
  header: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  right: ReadonlySet<string> = new Set(),
): string[] {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => columnsOf(r[i] ?? ''))));
  return all.map((row) =>
    row
      .map((cell, i) => {
        const w = widths[i]!;
        if (right.has(header[i]!)) return ' '.repeat(w - columnsOf(cell)) + cell;
        return i === row.length - 1 ? cell : padToColumns(cell, w);
      })
      .join('  ')
      .trimEnd(),
  );
}
