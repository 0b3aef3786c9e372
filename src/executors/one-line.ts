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

/** A line of stderr that says what went wrong, as git, npm and most tools begin it. */
const ERROR_LINE = /^(fatal|error|Error|ERROR|E)(\[[^\]]*\])?:\s/;

/**
 * The gist of a failed process's stderr for its one-line message: its last
 * `n` non-empty lines, led by the last line that names an error when that
 * one came earlier. Tools often end with advice (git ends an index-lock
 * failure with "remove the file manually to continue") and say what failed
 * and where first.
 */
export function stderrGist(text: string, n = 3): string {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '');
  const last = lines.slice(-n);
  let cause: string | undefined;
  for (let i = lines.length - n - 1; i >= 0 && cause === undefined; i--)
    if (ERROR_LINE.test(lines[i]!.trim())) cause = lines[i]!.trim();
  return [...(cause === undefined ? [] : [cause, '...']), ...last.map((l) => l.trim())].join(' | ');
}
