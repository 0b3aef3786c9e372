#!/usr/bin/env -S node --max-semi-space-size=2 --heap-growing-percent=50
import { CommanderError } from 'commander';
import { RaymondError, formatError } from '../errors.js';
import { EXIT } from './exit-codes.js';
import { buildProgram, jsonError, normalizeArgv, type CliResult } from './program.js';
import { commandName } from './program-name.js';
import { mistypedCommandError } from './command-suggest.js';

/**
 * The one place that turns errors into messages and sets the exit code. Every
 * error is one `raymond: ` line (`ray: ` when run as ray) on stderr (with --json, also a JSON object on
 * stdout); a stack trace only with --verbose or for our own bugs.
 */
async function main(argv: string[]): Promise<number> {
  const result: CliResult = { exitCode: EXIT.completed };
  const program = buildProgram(result);
  try {
    await program.parseAsync(normalizeArgv(argv));
    return result.exitCode;
  } catch (thrown) {
    let err = thrown;
    // Help and --version, which commander ends by throwing.
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.completed : EXIT.invalid;
    // `raymond serv --root .` stops at --root, but the mistake is the command's name.
    if (err instanceof RaymondError && err.code === 'ERR_USAGE')
      err = mistypedCommandError(program) ?? err;
    // Before a command has read its options (a usage mistake), --json is looked for as written.
    const json =
      result.jsonError === undefined
        ? argv.includes('--json')
          ? jsonError
          : null
        : result.jsonError;
    const verbose = argv.includes('--verbose');
    if (err instanceof RaymondError && err.code !== 'ERR_INTERNAL') {
      if (json) process.stdout.write(`${json(formatError(err), err.code)}\n`);
      process.stderr.write(`${commandName()}: ${formatError(err)}\n`);
      if (verbose && err.stack) process.stderr.write(`${err.stack}\n`);
      return err.kind === 'invalid'
        ? EXIT.invalid
        : err.kind === 'transient'
          ? EXIT.transient
          : EXIT.failed;
    }
    if (json)
      process.stdout.write(
        `${json(`internal error: ${err instanceof Error ? err.message : String(err)}`, 'ERR_INTERNAL')}\n`,
      );
    process.stderr.write(
      `${commandName()}: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    return EXIT.failed;
  }
}

// `raymond --help | head` closes the pipe early: what was wanted has been read, so end quietly, not with a stack.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(process.exitCode ?? 0);
});
// A write past the file-size limit (ulimit -f) must fail like a full disk, not kill the run mid-write.
process.on('SIGXFSZ', () => {});
// Scripts call this same Raymond back (`"$RAYMOND_BIN" merge ...`), whether or not it is on their PATH.
if (process.argv[1]) process.env.RAYMOND_BIN = process.argv[1];
process.exitCode = await main(process.argv);
