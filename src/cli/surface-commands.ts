import { Argument, Option, type Command } from 'commander';
import { EXIT } from './exit-codes.js';
import { suggestCommands } from './command-suggest.js';
import { SHELLS, type Shell } from './completion-scripts.js';
import { TEMPLATE_NAMES, type TemplateName } from './workflow-templates.js';

/**
 * Adds what makes the command line easy to reach: `completion`, `new`, the
 * "did you mean" check of a mistyped command, and `-V` (commander's old
 * spelling of `--version`, now `-v`) kept working without being shown.
 */
export function addSurfaceCommands(program: Command, result: { exitCode: number }): void {
  suggestCommands(program);
  program.addOption(new Option('-V').hideHelp());
  // Commander is an EventEmitter (its typings leave that out): -V fires what --version fires.
  program.on('option:V', () => (program as unknown as NodeJS.EventEmitter).emit('option:version'));
  program
    .command('completion')
    .description(
      'print a completion script for bash, zsh or fish (commands, options, workflow paths)',
    )
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(SHELLS))
    .addHelpText(
      'after',
      `\nExamples:\n  source <(${program.name()} completion bash)     # this bash; add the line to ~/.bashrc to keep it\n  ${program.name()} completion zsh > "\${fpath[1]}/_raymond"\n  ${program.name()} completion fish > ~/.config/fish/completions/raymond.fish`,
    )
    .action(async (shell: Shell) => {
      const { completionScript } = await import('./completion-command.js');
      process.stdout.write(completionScript(program, shell));
      result.exitCode = EXIT.completed;
    });
  program
    .command('new')
    .description('make a new workflow folder from a template, with a README saying how to run it')
    .argument('<name>', 'the folder to make (it must not exist, or be empty)')
    .addOption(
      new Option(
        '--template <template>',
        'fork-join (a markdown START that forks workers and joins them), review-loop or batch-refactor',
      )
        .choices(TEMPLATE_NAMES)
        .default('fork-join'),
    )
    .action(async (name: string, opts: { template: TemplateName }) => {
      const { newCommand } = await import('./new-command.js');
      result.exitCode = await newCommand(name, opts.template);
    });
}
