import { Option, type Command } from 'commander';
import { RaymondError } from '../errors.js';
import type { CliResult } from './dispatch.js';
import { integer, money } from './options.js';

/**
 * Adds `export` and its one subcommand, `claude-plugin`: workflows as a
 * Claude Code plugin. Returns `export`, whose subcommand the caller gives
 * Raymond's usage errors like every other command.
 */
export function addExportCommand(program: Command, result: CliResult): Command {
  const exporter = program
    .command('export')
    .description('write workflows in a form another tool installs: a Claude Code plugin')
    .action(() => {
      // Reached only without a subcommand (an unknown one is too many arguments).
      throw new RaymondError(
        'ERR_USAGE',
        `export needs a format: the only one is claude-plugin (run ${program.name()} export claude-plugin --help for usage)`,
      );
    });
  exporter
    .command('claude-plugin')
    .description(
      'write a Claude Code plugin of workflows: a skill per workflow, and `raymond mcp` as its MCP server, so installing the plugin makes the workflows callable',
    )
    .argument(
      '<workflows...>',
      'workflow folders, skill packages, .zip archives or .yaml workflows (copied into the plugin)',
    )
    .requiredOption('--out <dir>', 'the folder to write the plugin to (made; must be empty)')
    .option(
      '--name <name>',
      "the plugin's name: letters, digits, - and _ (default: the one workflow's id, else raymond-workflows)",
    )
    .option(
      '--command <path>',
      'the raymond executable the plugin runs its MCP server with (default: raymond, from PATH)',
    )
    .option('--author <name>', "the plugin's author (default: your user name)")
    .addOption(
      new Option(
        '--wait <seconds>',
        "the server's --wait: how long a tool call waits for its run (default: raymond mcp's)",
      ).argParser(integer(0)),
    )
    .addOption(
      new Option(
        '--budget <usd>',
        "the server's --budget: budget of runs whose call and manifest give none",
      ).argParser(money),
    )
    .option('--force', 'replace the plugin already in --out')
    .addHelpText(
      'after',
      `\nExamples:\n  ${program.name()} export claude-plugin workflows/review-loop --out review-plugin\n  claude --plugin-dir review-plugin                 # try it for one session\n  claude plugin install review-loop --marketplace ./review-plugin`,
    )
    .action(async (workflows: string[], opts: import('./export-command.js').ExportFlags) => {
      const { exportClaudePlugin } = await import('./export-command.js');
      result.exitCode = await exportClaudePlugin(workflows, opts);
    });
  return exporter;
}
