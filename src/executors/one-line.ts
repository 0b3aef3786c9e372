/** A process's output as its non-empty lines, each trimmed. */
function nonEmptyLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
}

/** A process's output as one line for a message: its non-empty lines trimmed and joined with ` | `, cut at `max` characters. */
export function oneLine(text: string, max = 300): string {
  const t = nonEmptyLines(text).join(' | ');
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
  const lines = nonEmptyLines(text);
  const cause = lines.slice(0, -n).findLast((l) => ERROR_LINE.test(l));
  return [...(cause === undefined ? [] : [cause, '...']), ...lines.slice(-n)].join(' | ');
}
