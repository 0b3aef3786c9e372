import { openScope } from '../scope/scope.js';
import { planOf } from '../plan/load-plan.js';
import { EXIT } from './exit-codes.js';
import { planText } from './plan-text.js';

/** Options of `raymond plan`. */
export interface PlanOptions {
  /** The run's input, as `--input` would give it: counted into the entry state's prompt. */
  input?: string;
  json?: boolean;
}

/**
 * `raymond plan WORKFLOW`: the states a run can reach and what each is
 * expected to cost and take, from the project's run history or from the
 * stated prior; the whole run's range and the budget it would need. Runs
 * nothing, spends nothing, writes nothing.
 */
export async function planCommand(path: string, opts: PlanOptions): Promise<number> {
  const scope = await openScope(path);
  try {
    const { plan } = await planOf(scope, path, undefined, {
      ...(opts.input !== undefined ? { input: opts.input } : {}),
    });
    process.stdout.write(opts.json ? `${JSON.stringify(plan)}\n` : planText(plan));
    return EXIT.completed;
  } finally {
    await scope.dispose();
  }
}
