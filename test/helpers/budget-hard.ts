import assert from 'node:assert/strict';
import type { WorkflowState } from '../../machines/types.js';
import { priceOf } from '../../src/agents/anthropic-prices.js';
import type { ApiRequest, ApiServer, Reply } from './api-server.js';
import { sh, summary, type CliResult, type Summary } from './cli.js';

/**
 * The --budget-hard e2e tests' two runs, whatever the backend (Claude Code,
 * pi, Codex) and wherever the turns run (here, or on a queue's workers):
 * one long turn stopped at the budget, then resumed with a larger one; and
 * the long Claude Code turn they stop, with the price of one of its messages.
 */

/** How a test runs the CLI (its sandbox's environment, a queue's flags) and reads a run's state. */
export interface HardBox {
  run(args: string[]): Promise<CliResult>;
  state(id: string): WorkflowState;
}

/** The arguments of a `--json` run of `wf` as `id` with `--budget budgetUsd --budget-hard` (and `extra`). */
export function hardArgs(
  wf: string,
  id: string,
  budgetUsd: number,
  extra: string[] = [],
): string[] {
  return [
    wf,
    '--json',
    '--workflow-id',
    id,
    '--budget',
    budgetUsd.toFixed(6),
    '--budget-hard',
    ...extra,
  ];
}

/**
 * Runs the workflow `wf` as `id` with `--budget budgetUsd --budget-hard`
 * (and `extra`), and checks what the hard line promises on every backend:
 * exit 3, `budget_exceeded`, the error saying the running turns were
 * stopped, and the main agent paused by the hard line with the session its
 * turn ran in.
 */
export async function stoppedAtBudget(
  box: HardBox,
  wf: string,
  id: string,
  budgetUsd: number,
  extra: string[] = [],
): Promise<{ out: Summary; r: CliResult }> {
  const r = await box.run(hardArgs(wf, id, budgetUsd, extra));
  const out = summary(r);
  assert.equal(r.code, 3, r.stderr.slice(-2000));
  assert.equal(out.status, 'budget_exceeded');
  assert.match(out.error!, /the turns running as it was reached were stopped \(--budget-hard\)/);
  const main = box.state(id).agents[0]!;
  assert.equal(main.status, 'paused', JSON.stringify(main));
  assert.match(main.error!, /stopped by --budget-hard: the run's cost reached its budget/);
  assert.ok(main.session, 'the session the stopped turn ran in is kept');
  return { out, r };
}

/** Resumes the stopped run `id` with a larger budget: it completes with the long turn's answer, `long done`. */
export async function resumedToEnd(
  box: HardBox,
  id: string,
  budgetUsd: number,
  extra: string[] = [],
): Promise<Summary> {
  const r = await box.run(['--resume', id, '--json', '--budget', budgetUsd.toFixed(6), ...extra]);
  const out = summary(r);
  assert.equal(r.code, 0, r.stderr.slice(-2000));
  assert.equal(out.status, 'completed');
  assert.equal(out.results.main, 'long done');
  return out;
}

/** A long turn's model message usage, the same for each: the turn's cost is in these. */
export const LONG_USAGE = { input_tokens: 100_000, output_tokens: 100 };
/** A long turn calls a tool (two messages of its conversation each) until its conversation holds this many: about ten model messages. */
const LONG = 21;

/**
 * What Claude Code's stream tells of a long turn's message, priced by the
 * table: its input (the stream prints a message's usage before its final
 * output count), so what a turn stopped after `n` messages is charged.
 */
export function streamedUsd(model: string, n: number): number {
  return (n * LONG_USAGE.input_tokens * priceOf(model).price.input) / 1e6;
}

/**
 * The scripted API's answer to each request of a long Claude Code turn: one
 * more tool call (a `sleep` of `seconds`, as real tools take a moment) until
 * the conversation (a resumed session's history too) holds LONG messages,
 * then `<result>` with `answer`.
 */
export function longTurn(answer: (r: ApiRequest) => string, seconds = 1): (r: ApiRequest) => Reply {
  return (r) =>
    r.messageCount < LONG
      ? {
          toolUse: { name: 'Bash', input: { command: `sleep ${seconds}`, description: 'work' } },
          usage: LONG_USAGE,
        }
      : { text: `<result>${answer(r)}</result>`, usage: LONG_USAGE };
}

/**
 * One model message's price as this `claude` computes it: a turn of one
 * message of LONG_USAGE, run as `id`; a prompt holding `ONE-MESSAGE id` is
 * answered so from then on.
 */
export async function priceMessage(
  box: {
    server: ApiServer;
    write(files: Record<string, string>, name: string): string;
    run(args: string[]): Promise<CliResult>;
  },
  id: string,
): Promise<number> {
  const marker = `ONE-MESSAGE ${id}`;
  box.server.on(marker, { text: '<result>probe</result>', usage: LONG_USAGE });
  const probe = await box.run([
    box.write({ 'START.md': marker }, id),
    '--json',
    '--workflow-id',
    id,
  ]);
  const message = summary(probe).total_cost_usd;
  assert.ok(message > 0, probe.stderr);
  return message;
}

/**
 * A workflow whose START forks one worker at LONG.md, a state of
 * `budget: capUsd` a visit whose prompt is `prompt`, and joins it: END.sh
 * gives the join's entries as the run's result.
 */
export function cappedWorker(prompt: string, capUsd: number): Record<string, string> {
  return {
    'START.sh': sh(`echo '<fork n="1">LONG.md</fork><join>END.sh</join>'`),
    'LONG.md': `---\nbudget: ${capUsd.toFixed(6)}\n---\n${prompt}`,
    'END.sh': sh('printf "<result>%s</result>" "$RAYMOND_INPUT"'),
  };
}
