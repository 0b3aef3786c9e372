import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { RaymondError } from '../errors.js';
import { DEFAULT_INSPECT_PORT, addMachineOptions, integer, money, speedFactor } from './options.js';
import type { DiagramOptions } from './diagram-command.js';
import { runWorktrees } from './runs-command.js';
import { EXIT } from './exit-codes.js';
import { defaultStateDir } from './cli-context.js';
import { dispatch, jsonError, usage, type CliResult } from './dispatch.js';
import { ROOT_EXAMPLES, addRootOptions } from './root-options.js';
import type { CliFlags } from './flag-settings.js';
import { commandName } from './program-name.js';
import { closestName, usageMessage } from './command-suggest.js';
import { addSurfaceCommands } from './surface-commands.js';
import { addServingCommands } from './serving-commands.js';
import { addRecordCommand } from './record-command.js';
import { addStatsCommand } from './stats-command.js';
import { addHistoryCommand } from './history-command.js';
import { addTestingCommands } from './testing-commands.js';
import { addPlanCommand } from './plan-commands.js';
import { addExportCommand } from './export-commands.js';

/** The package's version, read from package.json both from `src/` (tsx) and from `dist/src/`. */
function packageVersion(): string {
  for (const relative of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'raymond' && pkg.version) return pkg.version;
    } catch {
      // Not at this level; try the next.
    }
  }
  return 'unknown';
}

export { jsonError, type CliResult } from './dispatch.js';

/**
 * Commander's own mistakes (an unknown option, a missing argument) become
 * Raymond's usage errors, shown by main.ts like any other: one `raymond:`
 * line saying where help is, exit 64 (EXIT.invalid). Help and --version end with exit 0.
 */
function usageErrors(command: Command, name: string): Command {
  return command.exitOverride((err: CommanderError) => {
    if (err.exitCode === 0) throw err;
    throw new RaymondError('ERR_USAGE', usageMessage(err.message, name));
  });
}

/**
 * `--inspect` takes its port only as `--inspect=PORT` or `--inspect PORT`
 * with digits: `raymond --inspect my-workflow` must not read the workflow as
 * a port, which commander's optional values would.
 */
export function normalizeArgv(argv: string[]): string[] {
  return argv.map((a, i) =>
    a === '--inspect' && !/^\d+$/.test(argv[i + 1] ?? '') ? `--inspect=${DEFAULT_INSPECT_PORT}` : a,
  );
}

/**
 * Builds the command line. The action stores its exit code in `result`, so
 * that only the entry point sets the process exit code.
 */
export function buildProgram(result: CliResult): Command {
  // Commander prints nothing itself: its errors reach main.ts as usage errors, shown in Raymond's
  // one style. Subcommands copy the output settings when they are created, so they come first.
  // Positional options let `lint PATH --json` mean the subcommand's --json rather than the root's.
  const program = usageErrors(new Command(), commandName())
    .configureOutput({ outputError: () => {} })
    .enablePositionalOptions();
  program
    .name(commandName())
    .usage(
      'PATH [options]  |  --resume ID  |  --list  |  --status ID  |  --recover  |  --init-config  |  worktrees ID [--prune]  |  merge ID --into BRANCH  |  record RUN  |  lint PATH  |  diagram PATH  |  plan PATH  |  convert PATH  |  export claude-plugin PATH... --out DIR  |  test [PATH...]  |  replay TRACE  |  serve --root DIR  |  worker --queue URL  |  workers --queue URL  |  new NAME  |  completion SHELL',
    )
    .description('Run a workflow of markdown prompts and shell scripts linked by transition tags.')
    .version(packageVersion(), '-v, --version', 'print the version')
    .argument(
      '[path]',
      'a state file, a workflow folder (entry 1_START or START), a .zip of one, or the URL of a hashed .zip',
    )
    .addHelpText('after', ROOT_EXAMPLES);
  addRootOptions(program).action(async (path: string | undefined, flags: CliFlags) => {
    result.exitCode = await dispatch(path, flags, result);
  });
  // `--help` lists the commands in these groups; a command added after a group heading joins it.
  program.commandsGroup('Commands about runs:');
  program
    .command('worktrees')
    .description("list a run's branches: commits, diffstat, where each is checked out now")
    .argument('<id>', 'the run')
    .option('--prune', "remove the run's worktree folders, keep the branches")
    .option('--state-dir <dir>', 'folder of state files (default: .raymond/state of the project)')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: { prune?: boolean; stateDir?: string; json?: boolean }) => {
      result.jsonError = opts.json ? jsonError : null;
      process.stdout.write(
        `${await runWorktrees(opts.stateDir ?? defaultStateDir(), id, { prune: !!opts.prune, json: !!opts.json })}\n`,
      );
      result.exitCode = EXIT.completed;
    });
  addMachineOptions(program.command('merge'))
    .description(
      "merge a run's agent branches into one branch, one at a time, each checked; conflicts and failed checks go back to the agent's session",
    )
    .argument('<id>', 'the run')
    .requiredOption(
      '--into <branch>',
      "the branch to merge into (made from the run's base if it does not exist; never a checked-out one)",
    )
    .option('--check <cmd>', 'run this (sh -c) after each merge; a merge it fails on is not kept')
    .addOption(
      new Option('--retries <n>', 'most resolution turns per branch by the agent that made it')
        .argParser(integer(0))
        .default(2),
    )
    .addOption(
      new Option(
        '--budget <usd>',
        "no resolution turn once the run's cost plus merge's reaches this; 0 = unlimited (default: the run's budget)",
      ).argParser(money),
    )
    .option('--delete-merged', 'delete the merged agent branches (and their fix branches)')
    .option('--state-dir <dir>', 'folder of state files (default: .raymond/state of the project)')

    .option('--json', 'the report as JSON on stdout')
    .option('--quiet', 'no progress lines on stderr')
    .action(
      async (
        id: string,
        opts: Omit<import('./merge-command.js').MergeFlags, 'stateDir'> & {
          stateDir?: string;
        } & Readonly<Record<string, unknown>>,
      ) => {
        result.jsonError = opts.json ? jsonError : null;
        const { mergeCommand } = await import('./merge-command.js');
        result.exitCode = await mergeCommand(id, {
          ...opts,
          stateDir: opts.stateDir ?? defaultStateDir(),
        });
      },
    );
  addRecordCommand(program, result);
  addStatsCommand(program, result);
  addHistoryCommand(program, result);
  program.commandsGroup('Commands about workflows:');
  program
    .command('lint')
    .description('check a workflow without running it: targets, frontmatter, reachability')
    .argument('<path>', 'a state file, a workflow folder, a .zip or its URL')
    .option('--json', 'machine-readable output')
    .addOption(
      new Option('--level <level>', 'least severity shown (the counts are of all findings)')
        .choices(['info', 'warning', 'error'])
        .default('warning'),
    )
    .option('--win', 'check the workflow as Windows runs it (.bat/.ps1 scripts)')
    .action(
      async (
        path: string,
        opts: { json?: boolean; level: 'info' | 'warning' | 'error'; win?: boolean },
      ) => {
        result.jsonError = opts.json ? jsonError : null;
        const { lintCommand } = await import('./lint-command.js');
        result.exitCode = await lintCommand(path, {
          json: !!opts.json,
          level: opts.level,
          win: !!opts.win,
        });
      },
    );
  program
    .command('diagram')
    .description('draw a workflow: Mermaid on stdout, or an HTML page or an XState machine')
    .argument('<path>', 'a state file, a workflow folder, a .zip or its URL')
    .option('--html <file>', 'write a self-contained HTML page (click a state to see its file)')
    .option('--xstate <file>', 'write an XState machine config (JSON)')
    .option('--win', 'draw the workflow as Windows runs it (.bat/.ps1 scripts)')
    .action(async (path: string, opts: DiagramOptions) => {
      const { diagramCommand } = await import('./diagram-command.js');
      result.exitCode = await diagramCommand(path, opts);
    });
  addPlanCommand(program, result);
  program
    .command('convert')
    .description('write a folder or zip workflow as one YAML file')
    .argument('<path>', 'a workflow folder or a .zip')
    .option('--output <file>', 'write the YAML here instead of stdout')
    .action(async (path: string, opts: { output?: string }) => {
      const { convertCommand } = await import('./convert-command.js');
      result.exitCode = await convertCommand(path, opts);
    });
  const exporter = addExportCommand(program, result);
  usageErrors(exporter.commands[0]!, `${commandName()} export claude-plugin`);
  addTestingCommands(program, result);
  program
    .command('replay')
    .description('replay a --trace file into the Stately inspector')
    .argument('<trace>', 'a file written by --trace')
    .addOption(
      new Option(
        '--port <port>',
        `port of the relay on 127.0.0.1 (default ${DEFAULT_INSPECT_PORT})`,
      ).argParser(integer(1, 65535)),
    )
    .addOption(
      new Option(
        '--speed <factor>',
        'replay at the recorded pace times this; 0 = all at once (default 0)',
      ).argParser(speedFactor),
    )
    .action(async (trace: string, opts: { port?: number; speed?: number }) => {
      const { replayTrace } = await import('../inspect/replay.js');
      await replayTrace(trace, {
        port: opts.port ?? DEFAULT_INSPECT_PORT,
        speed: opts.speed ?? 0,
        say: (line) => process.stderr.write(`raymond: ${line}\n`),
      });
      result.exitCode = EXIT.completed;
    });
  const serve = addServingCommands(program, result, packageVersion());
  usageErrors(serve.commands[0]!, `${commandName()} serve list`);
  addSurfaceCommands(program, result);
  // `raymond help lint`: commander offers a help command only to a program without an action of its own.
  program.commandsGroup('Help:');
  program
    .command('help')
    .description('show the help of raymond, or of one of its commands')
    .argument(
      '[command]',
      'worktrees, merge, record, lint, diagram, convert, export, test, replay, serve, worker, workers, completion or new',
    )
    .action((name: string | undefined) => {
      const command =
        name === undefined ? program : program.commands.find((c) => c.name() === name);
      if (!command) {
        const meant = closestName(
          name ?? '',
          program.commands.map((c) => c.name()),
        );
        usage(
          meant === undefined
            ? `unknown command "${name}"`
            : `unknown command "${name}" (did you mean '${meant}'?)`,
        );
      }
      command.outputHelp();
      result.exitCode = EXIT.completed;
    });
  for (const command of program.commands)
    usageErrors(command, `${commandName()} ${command.name()}`);
  return program;
}
