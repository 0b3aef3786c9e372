/** A process's output as one line for a message: its non-empty lines trimmed and joined with ` | `, cut at `max` characters. */
export function oneLine(text: string, max = 300): string {
  const t = text
    .trim()
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' | ');
  return t.length > max ? `${t.slice(0, max - 3)}...` : t;
}
