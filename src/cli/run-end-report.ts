import { usd } from '../../machines/money.js';
import { dirname } from 'node:path';
import type { RunOutcome } from '../runtime/run-types.js';
import { mergedInto, readMergeState } from '../merge/merge-state.js';
import type { CliContext } from './cli-context.js';
import { worktreeHeader, worktreeLines } from './run-summary.js';
import { resumeCommand as answerCommand } from './ask-report.js';

// What a run prints on stderr once it ended, apart from running it: the run's end is read
// by people, and its wording changes without touching how the run is driven.

/** The command that goes on with a run, as the end of a run and its notifications show it. */
export function resumeCommand(workflowId: string, ctx: CliContext): string {
  return `raymond --resume ${workflowId}${ctx.stateDirGiven !== undefined ? ` --state-dir ${ctx.stateDirGiven}` : ''}`;
}

/** The lines on stderr after the result: worktrees and merges, the error, the summary line, and how to go on. */
export async function reportEnd(
  ctx: CliContext,
  outcome: RunOutcome,
  summary: string | undefined,
): Promise<void> {
  const say = (text: string) => process.stderr.write(`${text}\n`);
  // A script of the run may have merged its branches (`raymond merge`), with resolution turns charged to the run.
  const merge =
    outcome.worktrees.length > 0
      ? await readMergeState(dirname(outcome.stateFile), outcome.workflowId).catch(() => undefined)
      : undefined;
  if (outcome.worktrees.length > 0 && !ctx.quiet)
    say(
      `${worktreeHeader(outcome)}\n${worktreeLines(outcome.worktrees, mergedInto(merge)).join('\n')}`,
    );
  if (merge && merge.total_cost_usd > 0 && !ctx.quiet)
    say(
      `raymond merge: ${merge.turns.length} resolution turn(s), ${usd(merge.total_cost_usd)}, on top of the steps' cost below (raymond --status ${outcome.workflowId} shows the total)`,
    );
  if (outcome.error !== undefined) say(`raymond: ${outcome.error}`);
  if (summary !== undefined) say(summary);
  if (outcome.status === 'asking') {
    for (const a of outcome.asks) say(`[${a.agent_id}] asks (${a.id}): ${a.prompt.split('\n')[0]}`);
    say(
      `answer with: ${answerCommand(outcome.workflowId, ctx.stateDirGiven)}${outcome.asks.length > 1 ? ' (the oldest ask), or --answer ASK_ID=TEXT' : ''}`,
    );
  } else if (outcome.status !== 'completed') {
    say(`resume with: ${resumeCommand(outcome.workflowId, ctx)}`);
  }
  if (ctx.verbose) {
    const w = outcome.stateWrites;
    say(
      `state file ${outcome.stateFile}: ${w.writes} writes (${w.snapshots} snapshots), ${w.bytes} bytes`,
    );
    // The whole process (its worker threads too), so a bench can charge the orchestrator per step.
    const cpu = process.cpuUsage();
    say(
      `orchestrator: CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms (user ${(cpu.user / 1000).toFixed(0)}, system ${(cpu.system / 1000).toFixed(0)}), peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`,
    );
  }
}
