import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import type { Command } from 'commander';
import { RaymondError } from '../errors.js';
import { defaultStateDir } from './cli-context.js';
import type { CliResult } from './dispatch.js';
import { EXIT } from './exit-codes.js';
import { commandName } from './program-name.js';

interface RecordFlags {
  out?: string;
  stateDir?: string;
  force?: boolean;
}

/** Adds `raymond record RUN [--out FILE]` to the program. */
export function addRecordCommand(program: Command, result: CliResult): void {
  program
    .command('record')
    .description('turn a past run into a workflow test: its replies, tool calls, answers and path')
    .argument('<run>', 'the id of the run (raymond --list shows them)')
    .option(
      '--out <file>',
      "where to write the test (default: the workflow folder's tests/RUN.test.yaml; stdout for a one-file workflow; - for stdout)",
    )
    .option('--force', 'replace the test file if it exists')
    .option('--state-dir <dir>', 'folder of state files (default: .raymond/state of the project)')
    .addHelpText(
      'after',
      '\nExamples:\n  raymond record 20260101-120000-ab12     # writes WORKFLOW/tests/20260101-120000-ab12.test.yaml\n  raymond record ID --out review/tests/approves.test.yaml\n  raymond test review                     # replays it, free',
    )
    .action(async (run: string, opts: RecordFlags) => {
      result.exitCode = await recordCommand(run, opts);
    });
}

/**
 * `raymond record RUN`: reads the run's state file and debug logs and writes
 * the test that replays it (src/testing/record.ts). Prints where it went on
 * stdout, or the test itself when it goes to stdout.
 */
async function recordCommand(run: string, opts: RecordFlags): Promise<number> {
  const { recordRun } = await import('../testing/record.js');
  const { defaultTestFile, testFileText } = await import('../testing/record-file.js');
  const recorded = await recordRun(opts.stateDir ?? defaultStateDir(), run);
  const out = opts.out === '-' ? undefined : (opts.out ?? defaultTestFile(recorded, run));
  const text = testFileText(recorded, run, out);
  if (out === undefined) {
    process.stdout.write(text);
    return EXIT.completed;
  }
  if (!opts.force && existsSync(out))
    throw new RaymondError(
      'ERR_RECORD',
      'the test file exists: give --force to replace it, or another --out',
      {
        file: out,
      },
    );
  try {
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, text);
  } catch (err) {
    throw new RaymondError(
      'ERR_RECORD',
      `cannot write it (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
      {
        file: out,
      },
    );
  }
  const turns = Object.values(recorded.spec.replies ?? {}).reduce((n, list) => n + list.length, 0);
  process.stdout.write(
    `wrote ${relative(process.cwd(), out) || out}: ${turns} turn(s) of run ${run}; run it with: ${commandName()} test ${relative(process.cwd(), out) || out}\n`,
  );
  return EXIT.completed;
}
