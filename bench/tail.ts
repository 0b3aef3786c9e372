/** The last `n` non-empty lines of a process's stderr, indented, for a failure's report. */
export function tailOf(stderr: string, n = 8): string {
  const lines = stderr
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '')
    .slice(-n);
  return lines.length === 0 ? '(no stderr)' : `\n${lines.map((l) => `    | ${l}`).join('\n')}`;
}
