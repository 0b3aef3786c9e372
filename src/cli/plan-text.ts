import { usd } from '../../machines/money.js';
import { costRange, planBasis } from '../plan/forecast-line.js';
import { DEFAULT_TURNS, SYSTEM_PROMPT_TOKENS } from '../plan/state-prior.js';
import type { PlanRow, WorkflowPlan } from '../plan/workflow-plan.js';
import { elapsed as wall } from './run-summary.js';
import { textTable } from './text-table.js';

const HEADER = [
  'state',
  'model',
  'basis',
  'visits',
  'cost p50',
  'cost p90',
  'time p50',
  'time p90',
  'fork widths',
];
const FIGURES = new Set(['cost p50', 'cost p90', 'time p50', 'time p90']);

/** `1`, `2–5`, or why it is unbounded. */
function visitsText(v: PlanRow['visits']): string {
  if (v.p90 === null) return v.unbounded === 'loop' ? 'loop: unbounded' : 'per worker: unbounded';
  return v.p50 === v.p90 ? String(v.p50) : `${v.p50}–${v.p90}`;
}

function basisText(row: PlanRow): string {
  if (row.basis === 'history') return `history n=${row.samples}`;
  if (row.basis === 'free') return row.samples > 0 ? `free n=${row.samples}` : 'free';
  return row.price?.endsWith('(default)') ? 'guess (price unknown)' : 'guess';
}

function forksText(forks: PlanRow['forks']): string {
  if (!forks) return '';
  if (forks.seen.length === 0) return 'none seen: unbounded';
  const seen = forks.seen.length > 6 ? [...forks.seen.slice(0, 5), '…'] : forks.seen;
  return `${seen.join(', ')} (p50 ${forks.p50}, p90 ${forks.p90})`;
}

/** `3m07s–unbounded`: a time range. */
function timeRange(range: { p50: number; p90: number | null }): string {
  return `${wall(range.p50)}–${range.p90 === null ? 'unbounded' : wall(range.p90)}`;
}

/**
 * `raymond plan`'s report: a line per reachable state (per step figures),
 * the whole run's range, and the budget it would need.
 */
export function planText(plan: WorkflowPlan): string {
  const lines = [
    `${plan.workflow} (${plan.path}): ${plan.states.length} reachable state${plan.states.length === 1 ? '' : 's'}, ${plan.historyRuns === 0 ? 'no history' : `history of ${plan.historyRuns} run${plan.historyRuns === 1 ? '' : 's'}`}`,
  ];
  if (plan.states.length === 0) return `${lines[0]} (no entry state)\n`;
  lines.push(
    '',
    ...textTable(
      HEADER,
      plan.states.map((r) => [
        r.state,
        r.kind === 'script' ? '-' : (r.model ?? 'default'),
        basisText(r),
        visitsText(r.visits),
        usd(r.costUsd.p50),
        usd(r.costUsd.p90),
        wall(r.wallMs.p50),
        wall(r.wallMs.p90),
        forksText(r.forks),
      ]),
      FIGURES,
    ),
    '',
    'Cost and time are per step; a run makes "visits" steps of a state.',
    `whole run: ${costRange(plan.run.costUsd)} (p50–p90, ${planBasis(plan)}); time ${timeRange(plan.run.wallMs)}`,
  );
  if (plan.run.basis === 'runs')
    lines.push(`states added up: ${costRange(plan.run.statesSum.costUsd)}`);
  for (const why of plan.run.unbounded) lines.push(`  unbounded: ${why}`);
  lines.push(
    plan.budgetUsd === 0
      ? 'budget it would need: none (every state is a script: free)'
      : plan.budgetUsd === null
        ? 'budget it would need: unbounded (nothing bounds a loop or fork it has never run; --budget USD caps a run, and a few runs of history bound the forecast)'
        : `budget it would need: ${usd(plan.budgetUsd)} (--budget ${plan.budgetUsd})`,
  );
  if (plan.states.some((r) => r.basis === 'guess'))
    lines.push(
      `guesses: ${plan.pricesOf} prices of ${plan.pricesTaken}, ${DEFAULT_TURNS} model requests per step of the prompt plus ${plan.agentCli}'s ~${SYSTEM_PROMPT_TOKENS.toLocaleString('en-US')}-token system prompt`,
    );
  return `${lines.join('\n')}\n`;
}
