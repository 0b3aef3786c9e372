import { join } from 'node:path';
import { projectRootOf } from '../task-folder-pattern.js';
import { forecastLine } from '../plan/forecast-line.js';
import { planOf } from '../plan/load-plan.js';
import type { CliContext } from './cli-context.js';
import type { OpenedWorkflow } from './opened-workflow.js';
import { newRunSettings } from './flag-settings.js';

/**
 * On a terminal, before a new run starts: its forecast in one line on
 * stderr (`raymond: forecast: $0.12–$0.40 (history of 3 runs); budget
 * $10.00`), as `raymond plan` would figure it. Elsewhere, on a resume, or
 * with --quiet, nothing. A forecast that cannot be made is left out: it
 * never stands in the run's way.
 */
export async function printForecast(ctx: CliContext, workflow: OpenedWorkflow): Promise<void> {
  if (!process.stderr.isTTY || ctx.quiet || !workflow.scope || ctx.path === undefined) return;
  try {
    const settings = newRunSettings(ctx.flags, ctx.config);
    const project = projectRootOf(join(ctx.stateDir, 'run.json'));
    const { plan } = await planOf(workflow.scope, ctx.path, project, {
      ...(settings.model ? { model: settings.model } : {}),
      ...(settings.prices ? { prices: settings.prices } : {}),
      ...(ctx.flags.input !== undefined ? { input: ctx.flags.input } : {}),
    });
    process.stderr.write(`raymond: ${forecastLine(plan, settings.budgetUsd)}\n`);
  } catch {
    // The run itself reports what is wrong with its workflow or settings.
  }
}
