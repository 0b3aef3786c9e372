import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { closestName } from '../closest-name.js';
import { RaymondError } from '../errors.js';

// program.ts finds its mistyped subcommands with it too.
export { closestName };

/**
 * The command a root argument was mistyped from, or undefined. Only a bare
 * word (letters and dashes) that names no file or folder here is a
 * candidate: a workflow that exists always runs, and a missing path that is
 * close to no command keeps the error that names the path.
 */
export function mistypedCommand(
  word: string,
  names: readonly string[],
  exists: (path: string) => boolean,
): string | undefined {
  if (!/^[A-Za-z][A-Za-z-]*$/.test(word) || names.includes(word) || exists(word)) return undefined;
  return closestName(word, names);
}

/**
 * A commander error message as one Raymond usage line. Commander puts its
 * guess on a second line (`unknown option '--lsit'\n(Did you mean
 * --list?)`); it becomes `unknown option '--lsit' (did you mean
 * '--list'?)`. Without a guess the line says where help is. A value quoted
 * back may hold control characters: escaped, the message stays one line.
 */
export function usageMessage(message: string, command: string): string {
  const [head = '', ...rest] = message.replace(/^error: /, '').split('\n');
  const guess = /^\(Did you mean (one of )?(.+)\?\)$/.exec(rest.join('\n'));
  // eslint-disable-next-line no-control-regex -- control characters are what is escaped
  const line = (guess ? head : [head, ...rest].join('\n')).replace(/[\u0000-\u001f]/g, (c) =>
    JSON.stringify(c).slice(1, -1),
  );
  if (!guess) return `${line} (run ${command} --help for usage)`;
  const names = guess[2]!.split(', ').map((n) => `'${n}'`);
  return `${line} (did you mean ${guess[1] ?? ''}${names.join(', ')}?)`;
}

/**
 * The usage error for a program whose first word is a mistyped command
 * (`raymond lnit`), or undefined. Commander has read the words into
 * `program.args` both when the root's action is about to run and when it
 * stopped at a usage mistake (`raymond serv --root .`: --root is no root
 * option), so both report the command meant rather than what followed.
 */
export function mistypedCommandError(program: Command): RaymondError | undefined {
  const word = program.args[0];
  if (word === undefined) return undefined;
  const meant = mistypedCommand(
    word,
    program
      .createHelp()
      .visibleCommands(program)
      .map((c) => c.name()),
    existsSync,
  );
  return meant === undefined
    ? undefined
    : new RaymondError('ERR_USAGE', `unknown command '${word}' (did you mean '${meant}'?)`);
}

/** Refuses a mistyped command before the root's action would open it as a workflow and report a missing file. */
export function suggestCommands(program: Command): void {
  program.hook('preAction', (_root, action) => {
    const error = action === program ? mistypedCommandError(program) : undefined;
    if (error) throw error;
  });
}
