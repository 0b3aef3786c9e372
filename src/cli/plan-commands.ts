import type { Command } from 'commander';
import { jsonError, type CliResult } from './dispatch.js';

/** Adds `plan`: a run's forecast, before it runs. */
export function addPlanCommand(program: Command, result: CliResult): void {
  program
    .command('plan')
    .description(
      'forecast a run without running it: the states it can reach, cost and time per state (p50/p90, from past runs or a stated guess), the whole run and the budget it would need',
    )
    .argument('<workflow>', 'a state file, a workflow folder, a .zip or its URL')
    .option('--input <text>', "the run's input, counted into the entry state's prompt")
    .option('--json', 'the forecast as JSON on stdout')
    .addHelpText(
      'after',
      `\nExamples:\n  ${program.name()} plan workflows/review-loop\n  ${program.name()} plan workflows/review-loop --input "fix the login bug" --json`,
    )
    .action(async (path: string, opts: import('./plan-command.js').PlanOptions) => {
      result.jsonError = opts.json ? jsonError : null;
      const { planCommand } = await import('./plan-command.js');
      result.exitCode = await planCommand(path, opts);
    });
}
