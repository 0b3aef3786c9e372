import { join } from 'node:path';
import { projectRootOf } from '../task-folder-pattern.js';
import { openScope } from '../scope/scope.js';
import { runContext } from './cli-context.js';
import { newRunSettings } from './flag-settings.js';
import { skippedWarning } from '../history/history-store.js';
import { planOf } from '../plan/load-plan.js';
import { EXIT } from './exit-codes.js';
import { planText } from './plan-text.js';

/** Options of `raymond plan`. */
export interface PlanOptions {
  /** The run's input, as `--input` would give it: counted into the entry state's prompt. */
  input?: string;
  json?: boolean;
  /** `--model`: the model of markdown states whose frontmatter names none (else the config's). */
  model?: string;
  /** The state folder whose project's history is read (default: .raymond/state of the project). */
  stateDir?: string;
}

/**
 * `raymond plan WORKFLOW`: the states a run can reach and what each is
 * expected to cost and take, from the project's run history or from the
 * stated prior; the whole run's range and the budget it would need. Runs
 * nothing, spends nothing, writes nothing.
 */
export async function planCommand(path: string, opts: PlanOptions): Promise<number> {
  // As a run would: the state folder and the model from the flags, else the project's config.
  const ctx = runContext(path, {
    ...(opts.stateDir !== undefined ? { stateDir: opts.stateDir } : {}),
    ...(opts.model !== undefined ? { model: opts.model } : {}),
  });
  const { model, prices } = newRunSettings(ctx.flags, ctx.config);
  const scope = await openScope(path);
  try {
    const project = projectRootOf(join(ctx.stateDir, 'run.json'));
    const { plan, history } = await planOf(scope, path, project, {
      ...(model ? { model } : {}),
      ...(prices ? { prices } : {}),
      ...(opts.input !== undefined ? { input: opts.input } : {}),
    });
    const skipped = history && skippedWarning(project, history);
    if (skipped) process.stderr.write(`raymond: warning: ${skipped}\n`);
    process.stdout.write(opts.json ? `${JSON.stringify(plan)}\n` : planText(plan));
    return EXIT.completed;
  } finally {
    await scope.dispose();
  }
}
