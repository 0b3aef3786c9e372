import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { EFFORTS, MODELS } from '../claude/claude-argv.js';
import { DEFAULT_BUDGET_USD, DEFAULT_MAX_PARALLEL, DEFAULT_TIMEOUT_SECONDS, integer, money } from './options.js';
import { runCommand, type RunFlags } from './run-command.js';

/** The package's version, read from package.json both from `src/` (tsx) and from `dist/src/`. */
function packageVersion(): string {
  for (const relative of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'raymond' && pkg.version) return pkg.version;
    } catch {
      // Not at this level; try the next.
    }
  }
  return 'unknown';
}

/**
 * Builds the command line. The action stores its exit code in `result`, so
 * that only the entry point sets the process exit code.
 */
export function buildProgram(result: { exitCode: number }): Command {
  const program = new Command();
  program
    .name('raymond')
    .description('Run a workflow of markdown prompts and shell scripts linked by transition tags.')
    .version(packageVersion())
    .argument('<path>', 'a state file, a workflow folder (entry 1_START or START), or a .zip of one')
    .option('--input <text>', 'value of {{input}} (and $RAYMOND_INPUT) for the first state')
    .option('--workflow-id <id>', 'id of this run (letters, digits, - and _); default <scope>-<8 hex>')
    .option('--state-dir <dir>', 'folder of state files', '.raymond/state')
    .addOption(new Option('--max-parallel <n>', 'most steps running at once').argParser(integer(1)).default(DEFAULT_MAX_PARALLEL, `${DEFAULT_MAX_PARALLEL}, the number of cores`))
    .addOption(new Option('--timeout <seconds>', 'kill a step that prints nothing for this long').argParser(integer(1)).default(DEFAULT_TIMEOUT_SECONDS))
    .addOption(new Option('--budget <usd>', 'stop starting steps once the run has cost more than this (0 = unlimited)').argParser(money).default(DEFAULT_BUDGET_USD))
    .addOption(new Option('--model <model>', 'Claude model for markdown states whose frontmatter names none').choices(MODELS))
    .addOption(new Option('--effort <level>', 'effort for markdown states whose frontmatter names none').choices(EFFORTS))
    .option('--dangerously-skip-permissions', 'let Claude Code run any tool without asking (trusted workflows only)')
    .option('--claude-bin <path>', 'the Claude Code executable (default: claude on PATH)')
    .option('--json', 'print one JSON object with the outcome on stdout')
    .option('--quiet', 'no progress lines on stderr')
    .option('--verbose', 'more detail on stderr, with stack traces')
    .showHelpAfterError('(run raymond --help for usage)')
    .action(async (path: string, flags: RunFlags) => {
      result.exitCode = await runCommand(path, flags);
    });
  return program;
}
