#!/usr/bin/env -S node --max-semi-space-size=2 --optimize-for-size
import { CommanderError } from 'commander';
import { RaymondError, formatError } from '../errors.js';
import { EXIT } from './exit-codes.js';
import { buildProgram, normalizeArgv } from './program.js';

/**
 * The one place that turns errors into messages and sets the exit code. User
 * mistakes get one line; a stack trace only with --verbose or for our own bugs.
 */
async function main(argv: string[]): Promise<number> {
  const result = { exitCode: EXIT.completed as number };
  const program = buildProgram(result).exitOverride();
  try {
    await program.parseAsync(normalizeArgv(argv));
    return result.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? EXIT.completed : EXIT.invalid;
    }
    const verbose = argv.includes('--verbose');
    if (err instanceof RaymondError && err.code !== 'ERR_INTERNAL') {
      process.stderr.write(`raymond: ${formatError(err)}\n`);
      if (verbose && err.stack) process.stderr.write(`${err.stack}\n`);
      return err.kind === 'invalid' ? EXIT.invalid : EXIT.failed;
    }
    process.stderr.write(`raymond: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return EXIT.failed;
  }
}

// A write past the file-size limit (ulimit -f) must fail like a full disk, not kill the run mid-write.
process.on('SIGXFSZ', () => {});
process.exitCode = await main(process.argv);
