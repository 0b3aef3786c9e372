/** A command line split into words, or what is wrong with it. */
export type SplitCommand = { ok: true; argv: string[] } | { ok: false; problem: string };

/** Characters a backslash escapes inside double quotes, as in a POSIX shell; before any other it stays. */
const DOUBLE_QUOTE_ESCAPES = new Set(['$', '`', '"', '\\', '\n']);

/**
 * Splits a hook's command line into argv as a POSIX shell splits words:
 * blanks separate words, single quotes keep everything, double quotes keep
 * everything but `\$ \` \" \\`, and a backslash outside quotes keeps the
 * next character. Nothing is expanded: `$VAR`, `~`, globs, `|`, `>` and `;`
 * stay literal text, since the command runs without a shell (a hook that
 * wants one names it: `sh -c '...'`).
 */
export function splitCommand(line: string): SplitCommand {
  const argv: string[] = [];
  let word = '';
  // A word may be empty ('' or ""), so "a word was started" is tracked apart from its text.
  let inWord = false;
  let i = 0;
  while (i < line.length) {
    const c = line[i]!;
    if (c === ' ' || c === '\t' || c === '\n') {
      if (inWord) argv.push(word);
      word = '';
      inWord = false;
      i++;
      continue;
    }
    inWord = true;
    if (c === '\\') {
      if (i + 1 >= line.length) return { ok: false, problem: 'ends with a lone backslash' };
      // Backslash-newline joins lines, as in a shell.
      if (line[i + 1] !== '\n') word += line[i + 1];
      i += 2;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return { ok: false, problem: 'has an unterminated single quote' };
      word += line.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      i++;
      for (;;) {
        if (i >= line.length) return { ok: false, problem: 'has an unterminated double quote' };
        const d = line[i]!;
        if (d === '"') break;
        if (d === '\\' && i + 1 < line.length && DOUBLE_QUOTE_ESCAPES.has(line[i + 1]!)) {
          if (line[i + 1] !== '\n') word += line[i + 1];
          i += 2;
        } else {
          word += d;
          i++;
        }
      }
      i++;
    } else {
      word += c;
      i++;
    }
  }
  if (inWord) argv.push(word);
  if (argv.length === 0) return { ok: false, problem: 'is empty' };
  if (argv[0] === '') return { ok: false, problem: 'names no program (its first word is empty)' };
  return { ok: true, argv };
}
