import { columnsOf, cutToColumns } from './text-columns.js';

/** `3m07s`, `1h02m03s`, `7s`. */
export function duration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  if (h > 0) return `${h}h${pad(m)}m${pad(s)}s`;
  if (m > 0) return `${m}m${pad(s)}s`;
  return `${s}s`;
}

/** Text for one terminal line: control characters would move the cursor and break erasing. */
function clean(text: string): string {
  return text.replace(/[\r\n\t]/g, ' ');
}

/**
 * Lays `[separator, item]` pairs out in lines of at most `columns` terminal
 * columns, breaking only between items (the separator is dropped at a
 * break), so a figure is never cut in two; only an item wider than the
 * terminal itself is cut.
 */
export function wrapItems(
  items: ReadonlyArray<readonly [string, string]>,
  columns: number,
): string[] {
  const lines: string[] = [];
  let line = '';
  for (const [separator, item] of items) {
    if (line !== '' && columnsOf(line) + columnsOf(separator) + columnsOf(item) <= columns)
      line += separator + item;
    else {
      if (line !== '') lines.push(line);
      line = item;
    }
  }
  if (line !== '') lines.push(line);
  return lines.map((l) => cutToColumns(clean(l), columns));
}

/** `text` then `end` in at most `columns` terminal columns: `text` is shortened with `…` so that `end` (a duration) stays whole. */
export function keepEnd(text: string, end: string, columns: number): string {
  const [t, e] = [clean(text), clean(end)];
  const [tw, ew] = [columnsOf(t), columnsOf(e)];
  if (tw + ew <= columns) return t + e;
  if (ew + 1 >= columns) return cutToColumns(t + e, columns);
  return `${cutToColumns(t, columns - ew - 1)}…${e}`;
}
