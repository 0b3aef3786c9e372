import { answeredByText } from '../../machines/cost-table.js';
import { usd } from '../../machines/money.js';
import type { RunCosts, WorkflowStats } from '../history/history-stats.js';
import { elapsed as wall } from './run-summary.js';
import { textTable } from './text-table.js';

/** Rows of an agent table past which the cheapest agents are summed in one line. */
const AGENT_ROWS = 20;

const percent = (share: number) => `${Math.round(share * 100)}%`;

/** `raymond stats WORKFLOW`: the workflow's runs, then one line per state, flags last. */
export function workflowStatsText(stats: WorkflowStats): string[] {
  const lines = [
    `${stats.workflow} (${stats.path}): ${stats.runs} run${stats.runs === 1 ? '' : 's'}, ${usd(stats.totalUsd)} in all; a run costs ${usd(stats.runCostP50Usd)} (p50), ${usd(stats.runCostP90Usd)} (p90)`,
    '',
  ];
  const header = [
    'state',
    'runs',
    'steps',
    'turns',
    'cost p50',
    'cost p90',
    'time p50',
    'time p90',
    'failed',
    'retries',
    'reminders',
  ];
  const models = stats.states.some((st) => st.answeredBy);
  const rows = stats.states.map((st) => [
    st.dearer ? `${st.state} !` : st.state,
    String(st.runs),
    String(st.steps),
    String(st.turns),
    usd(st.costP50Usd),
    usd(st.costP90Usd),
    wall(st.wallP50Ms),
    wall(st.wallP90Ms),
    percent(st.failureRate),
    String(st.retries),
    String(st.reminders),
    ...(models ? [answeredByText(st.answeredBy)] : []),
  ]);
  lines.push(
    ...textTable(models ? [...header, 'answered by'] : header, rows, new Set(header.slice(1))),
  );
  const flagged = stats.states.filter((st) => st.dearer);
  if (flagged.length > 0) lines.push('');
  for (const st of flagged)
    lines.push(
      `! ${st.state}: its latest run (${st.dearer!.run}) cost ${usd(st.dearer!.meanUsd)} a step, over the p90 of the steps before it (${usd(st.dearer!.p90Usd)})`,
    );
  return lines;
}

/** The cost-by-state table of a run (also in `--status`); which models answered, when any was named. */
export function costByStateText(costs: RunCosts): string[] {
  const models = costs.byState.some((r) => r.answeredBy);
  const header = ['state', 'steps', 'turns', 'cost', 'share', 'time'];
  return textTable(
    models ? [...header, 'answered by'] : header,
    costs.byState.map((r) => [
      r.name,
      String(r.steps),
      String(r.turns),
      usd(r.costUsd),
      percent(r.share),
      wall(r.wallMs),
      ...(models ? [answeredByText(r.answeredBy)] : []),
    ]),
    new Set(header.slice(1)),
  );
}

/** `raymond stats RUN`: the run's cost by state, then by agent (the dearest agents, the rest summed). */
export function runStatsText(costs: RunCosts, status: string | undefined): string[] {
  const lines = [
    `run ${costs.run}${status ? ` (${status})` : ''}: ${costs.steps} step${costs.steps === 1 ? '' : 's'}, ${usd(costs.costUsd)}`,
    '',
    ...costByStateText(costs),
    '',
  ];
  const header = ['agent', 'steps', 'turns', 'cost', 'share', 'time'];
  const shown = costs.byAgent.slice(0, AGENT_ROWS);
  const rows = shown.map((r) => [
    r.name,
    String(r.steps),
    String(r.turns),
    usd(r.costUsd),
    percent(r.share),
    wall(r.wallMs),
  ]);
  const rest = costs.byAgent.slice(AGENT_ROWS);
  if (rest.length > 0) {
    const sum = (f: (r: (typeof rest)[number]) => number) => rest.reduce((a, r) => a + f(r), 0);
    rows.push([
      `(${rest.length} more agents)`,
      String(sum((r) => r.steps)),
      String(sum((r) => r.turns)),
      usd(sum((r) => r.costUsd)),
      percent(sum((r) => r.share)),
      wall(sum((r) => r.wallMs)),
    ]);
  }
  lines.push(...textTable(header, rows, new Set(header.slice(1))));
  return lines;
}
