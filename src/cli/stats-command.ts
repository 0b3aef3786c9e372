import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { usd } from '../../machines/money.js';
import { RaymondError } from '../errors.js';
import { historyKey } from '../history/history-paths.js';
import { runCosts, workflowStats } from '../history/history-stats.js';
import { historyKeys, readWorkflowHistory, skippedWarning } from '../history/history-store.js';
import type { WorkflowHistory } from '../history/history-types.js';
import { readRunHistory } from '../history/run-steps.js';
import { projectRootOf } from '../task-folder-pattern.js';
import { openScope } from '../scope/scope.js';
import { defaultStateDir } from './cli-context.js';
import { jsonError, type CliResult } from './dispatch.js';
import { EXIT } from './exit-codes.js';
import { runStatsText, workflowStatsText } from './stats-text.js';

interface StatsFlags {
  json?: boolean;
  stateDir?: string;
}

/** Adds `raymond stats [WORKFLOW | RUN]`. */
export function addStatsCommand(program: Command, result: CliResult): void {
  program
    .command('stats')
    .description(
      "what runs cost and took, from the project's run history: per state of a workflow, or per state and agent of one run",
    )
    .argument(
      '[target]',
      'a workflow (its path, or its name in the history) or a run id; none: every workflow',
    )
    .option('--json', 'the figures as JSON on stdout')
    .option('--state-dir <dir>', 'folder of state files (default: .raymond/state of the project)')
    .addHelpText(
      'after',
      '\nExamples:\n  raymond stats                         # every workflow the history has\n  raymond stats workflows/review        # per state: runs, turns, cost and time p50/p90, failures\n  raymond stats 20260101-120000-ab12    # one run: cost by state and by agent',
    )
    .action(async (target: string | undefined, opts: StatsFlags) => {
      result.jsonError = opts.json ? jsonError : null;
      result.exitCode = await statsCommand(target, opts);
    });
}

function print(lines: string[] | object, json: boolean | undefined): number {
  process.stdout.write(
    json ? `${JSON.stringify(lines, null, 2)}\n` : `${(lines as string[]).join('\n')}\n`,
  );
  return EXIT.completed;
}

/** The history key of the workflow at `path`, as a run of it would record it. */
async function keyOfPath(path: string): Promise<string | undefined> {
  let scope;
  try {
    scope = await openScope(path);
  } catch {
    return undefined;
  }
  try {
    return historyKey(scope.ref);
  } finally {
    await scope.dispose();
  }
}

/** Reads a workflow's history, saying once on stderr when it skipped lines that are no record. */
async function readHistoryWarned(
  project: string,
  key: string,
): Promise<WorkflowHistory | undefined> {
  const h = await readWorkflowHistory(project, key);
  const skipped = h && skippedWarning(project, h);
  if (skipped) process.stderr.write(`raymond: warning: ${skipped}\n`);
  return h;
}

async function statsCommand(target: string | undefined, opts: StatsFlags): Promise<number> {
  const stateDir = opts.stateDir ?? defaultStateDir();
  const project = projectRootOf(join(stateDir, 'run.json'));
  if (target === undefined) {
    const all = [];
    for (const key of historyKeys(project)) {
      const h = await readHistoryWarned(project, key);
      if (h && h.runCount + Object.keys(h.states).length > 0) all.push(workflowStats(h));
    }
    if (opts.json) return print({ workflows: all }, true);
    if (all.length === 0) return print(['no runs in the history yet'], false);
    return print(
      all.map(
        (s) =>
          `${s.workflow}  ${s.runs} run${s.runs === 1 ? '' : 's'}  ${usd(s.totalUsd)} in all  p50 ${usd(s.runCostP50Usd)}  p90 ${usd(s.runCostP90Usd)}  ${s.path}`,
      ),
      false,
    );
  }
  const byPath = existsSync(target) ? await keyOfPath(target) : undefined;
  const byName = historyKeys(project).filter((k) => k.replace(/-[0-9a-f]{8}$/, '') === target);
  if (byPath === undefined && byName.length === 0) {
    const run = await readRunHistory(project, target);
    if (run) {
      const costs = runCosts(target, run.steps);
      return opts.json
        ? print({ ...costs, status: run.record?.status ?? null }, true)
        : print(runStatsText(costs, run.record?.status), false);
    }
    throw new RaymondError(
      'ERR_HISTORY',
      `no workflow or run "${target}" in the history of ${project} (raymond stats lists the workflows it has)`,
    );
  }
  if (byPath === undefined && byName.length > 1)
    throw new RaymondError(
      'ERR_HISTORY',
      `${byName.length} workflows are called "${target}" in the history: give the workflow's path`,
    );
  const key = byPath ?? byName[0]!;
  const h = await readHistoryWarned(project, key);
  if (!h || h.runCount + Object.keys(h.states).length === 0) {
    if (opts.json) return print({ workflow: target, runs: 0, states: [] }, true);
    return print([`no runs of ${target} in the history yet`], false);
  }
  const stats = workflowStats(h);
  return opts.json ? print(stats, true) : print(workflowStatsText(stats), false);
}
