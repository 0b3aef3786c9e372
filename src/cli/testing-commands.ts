import { Option, type Command } from 'commander';
import { jsonError, type CliResult } from './dispatch.js';
import { addMachineOptions, integer } from './options.js';

/** Adds `test`: workflow tests run offline against a scripted model. */
export function addTestingCommands(program: Command, result: CliResult): void {
  addMachineOptions(program.command('test'))
    .description(
      'run workflow tests (tests/*.test.yaml) offline: the real agent CLI against a scripted model on 127.0.0.1, free and deterministic',
    )
    .argument('[paths...]', 'test files, or folders searched for tests/*.test.yaml (default: .)')
    .option('--json', 'the results as JSON on stdout')
    .option('--junit <file>', 'also write the results as JUnit XML')
    .option(
      '--coverage',
      'also print, per workflow, the states and transition edges the tests never took',
    )
    .option('--keep', "keep each test's scratch folder and say where it is")
    .addOption(
      new Option('--jobs <n>', 'tests run at once (default: the number of cores)').argParser(
        integer(1),
      ),
    )
    .addHelpText(
      'after',
      `\nExamples:\n  ${program.name()} test                          # every tests/*.test.yaml under this folder\n  ${program.name()} test workflows/review --junit report.xml`,
    )
    .action(async (paths: string[], opts: import('./test-command.js').TestFlags) => {
      result.jsonError = opts.json ? jsonError : null;
      const { testCommand } = await import('./test-command.js');
      result.exitCode = await testCommand(paths, opts);
    });
}
