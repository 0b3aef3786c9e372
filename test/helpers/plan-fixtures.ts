import { sh } from './cli.js';
import type { StateHistory, WorkflowHistory } from '../../src/history/history-types.js';

/** A state's history with the given per-step costs and walls. */
export function stateHistory(
  state: string,
  fields: Partial<StateHistory> & Pick<StateHistory, 'costs' | 'walls'>,
): StateHistory {
  return {
    state,
    runs: fields.visits?.length ?? fields.costs.length,
    steps: fields.costs.length,
    turns: fields.costs.length,
    retries: 0,
    reminders: 0,
    failures: 0,
    visits: fields.costs.map(() => 1),
    widths: [],
    backend: 'claude',
    ...fields,
  };
}

/** A workflow's history index holding `states`, runs of the given total costs (one second each) and workers' costs. */
export function workflowHistory(
  states: StateHistory[],
  opts: { runCosts?: number[]; workers?: Record<string, number[]> } = {},
): WorkflowHistory {
  return {
    key: 'w-00000000',
    workflow: 'w',
    path: '/w',
    fingerprint: 'f',
    runs: (opts.runCosts ?? []).map((costUsd, i) => ({
      run: `run${i}`,
      startedAt: i * 10_000,
      endedAt: i * 10_000 + 1000,
      status: 'completed',
      costUsd,
      steps: 1,
      fingerprint: 'f',
      maxLive: 1,
    })),
    states: Object.fromEntries(states.map((s) => [s.state, s])),
    workers: opts.workers ?? {},
  };
}

/** A workflow with a fork, a join, a review loop and a state nothing leads to. */
export const LOOPING_WORKFLOW = {
  'START.md': 'Split the work.\n<fork next="WAIT">WORKER</fork>\n',
  'WORKER.md': 'Do one part.\n<result>done</result>\n',
  'WAIT.sh': sh("echo '<join>REVIEW</join>'"),
  'REVIEW.md': 'Review. <goto>REVISE</goto> or <result>ok</result>\n',
  'REVISE.md': 'Revise. <goto>REVIEW</goto>\n',
  'ORPHAN.md': 'Nobody comes here. <result>x</result>\n',
};
