import { join, resolve } from 'node:path';
import { RaymondError } from '../errors.js';
import { runWorkflow, type RunOutcome } from '../runtime/run-workflow.js';
import { createStderrReporter } from './progress.js';

export interface RunFlags {
  input?: string;
  workflowId?: string;
  stateDir?: string;
  maxParallel: number;
  timeout: number;
  budget: number;
  model?: string;
  effort?: string;
  dangerouslySkipPermissions?: boolean;
  claudeBin?: string;
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
}

/** Exit codes, as documented in the README. */
export const EXIT = { completed: 0, failed: 1, invalid: 2, budgetExceeded: 3, paused: 4, interrupted: 130 } as const;

/** JSON printed by `--json`. */
export function jsonSummary(outcome: Partial<RunOutcome> & { status: string; error?: string }): string {
  const out: Record<string, unknown> = {
    workflow_id: outcome.workflowId ?? null,
    status: outcome.status,
    total_cost_usd: outcome.totalCostUsd ?? 0,
    results: outcome.results ?? {},
  };
  if (outcome.error !== undefined) out.error = outcome.error;
  return JSON.stringify(out);
}

/** `raymond PATH`: runs a workflow and returns the process exit code. */
export async function runCommand(path: string, flags: RunFlags): Promise<number> {
  const reporter = createStderrReporter({ quiet: !!flags.quiet, verbose: !!flags.verbose });
  const controller = new AbortController();
  const onSignal = () => {
    process.stderr.write('\nraymond: interrupted; stopping every step (the state file keeps the run)\n');
    controller.abort();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let outcome: RunOutcome;
  try {
    outcome = await runWorkflow({
      path,
      input: flags.input,
      workflowId: flags.workflowId,
      stateDir: resolve(flags.stateDir ?? join('.raymond', 'state')),
      maxParallel: flags.maxParallel,
      timeoutSeconds: flags.timeout,
      budgetUsd: flags.budget,
      model: flags.model,
      effort: flags.effort,
      skipPermissions: flags.dangerouslySkipPermissions,
      claudeBin: flags.claudeBin,
      reporter,
      cwd: process.cwd(),
      signal: controller.signal,
    });
  } catch (err) {
    // Errors before the run starts (bad path, bad id) are still reported as JSON when asked.
    if (flags.json && err instanceof RaymondError) {
      process.stdout.write(`${jsonSummary({ status: 'failed', error: err.message })}\n`);
    }
    throw err;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  if (flags.json) process.stdout.write(`${jsonSummary(outcome)}\n`);
  else if (outcome.status === 'completed' && outcome.results.main !== undefined) process.stdout.write(`${outcome.results.main}\n`);
  if (outcome.error !== undefined) process.stderr.write(`raymond: ${outcome.error}\n`);
  if (flags.verbose) process.stderr.write(`raymond: state file ${outcome.stateFile}\n`);
  if (controller.signal.aborted) return EXIT.interrupted;
  if (outcome.status === 'budget_exceeded') return EXIT.budgetExceeded;
  if (outcome.status === 'paused') return EXIT.paused;
  return outcome.status === 'completed' ? EXIT.completed : EXIT.failed;
}
