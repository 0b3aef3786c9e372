import { runBudgets } from '../../machines/budget-figures.js';
import { widthText } from '../../machines/width-text.js';
import { gateJson } from '../../machines/gate.js';
import type { AgentAsk } from '../../machines/types.js';
import type { CostRow } from '../../machines/cost-table.js';
import { affordanceOf } from './ask-affordance.js';
import type { FileRecord } from './ask-files.js';
import type { ServedRun } from './served-run.js';
import type { WorkflowEntry } from '../scope/workflow-manifest.js';

/** `GET /workflows` entries: `ray serve`'s fields. */
export function workflowJson(w: WorkflowEntry) {
  return {
    id: w.id,
    name: w.name,
    description: w.description,
    input: w.input,
    default_budget: w.default_budget,
    requires_human_input: w.requires_human_input,
    backend: w.backend,
  };
}

/** An agent's `status` as `ray serve` gives it: empty while it runs. */
function rayAgentStatus(machine: string): string {
  return machine === 'idle' || machine === 'invoking' ? '' : machine;
}

/**
 * `GET /runs/{id}`: `ray serve`'s fields (`run_id`, `workflow_id`,
 * `status`, `current_state`, `agents`, `cost_usd`, `started_at`,
 * `elapsed_seconds`, `result`), and Raymond's: each agent's machine state,
 * stack depth and cost, the cost by state (dearest first), the budget, the
 * error, each backend's account width once it changed, the state file, and the id of the last event so far (for
 * `Last-Event-ID`).
 */
export function runJson(run: ServedRun, byState: CostRow[] = run.byState.rows(run.costUsd)) {
  const agents = [...run.agents.values()].map((a) => ({
    id: a.id,
    current_state: a.state,
    status: rayAgentStatus(a.machine),
    machine_state: a.machine,
    stack_depth: a.depth,
    cost_usd: a.costUsd,
    ...(a.result !== undefined ? { result: a.result } : {}),
  }));
  const end = run.endedAt ?? Date.now();
  return {
    run_id: run.id,
    workflow_id: run.workflowId,
    status: run.status,
    ...(run.agents.get('main') ? { current_state: run.agents.get('main')!.state } : {}),
    agents,
    cost_usd: run.costUsd,
    cost_by_state: byState.map((r) => ({
      state: r.name,
      steps: r.steps,
      turns: r.turns,
      cost_usd: r.costUsd,
      share: r.share,
      wall_ms: r.wallMs,
      ...(r.answeredBy ? { answered_by: r.answeredBy } : {}),
    })),
    budget_usd: run.budgetUsd,
    budgets: runBudgets(
      run.budgetUsd,
      run.costUsd,
      [...run.agents.values()].map((a) => ({
        spentUsd: a.costUsd,
        reservedUsd: a.reservedUsd ?? 0,
        ...(a.budgets ? { budgets: a.budgets } : {}),
      })),
    ),
    started_at: new Date(run.startedAt).toISOString(),
    elapsed_seconds: Math.max(0, (end - run.startedAt) / 1000),
    ...(run.result !== undefined ? { result: run.result } : {}),
    ...(run.error !== undefined ? { error: run.error } : {}),
    pending_asks: run.asks.size,
    account_widths: [...run.widths.values()].map((w) => ({
      backend: w.backend,
      width: w.width,
      was: w.was,
      ceiling: w.ceiling,
      reason: w.why,
      ...(w.until !== undefined ? { until: w.until } : {}),
      ...(w.perMinute !== undefined
        ? { requests_per_minute: w.perMinute, rate_told: w.told === true }
        : {}),
      message: widthText(w),
    })),
    state_file: run.stateFile,
    last_event_id: run.events.lastId,
  };
}

/** A pending ask as `GET /runs/{id}/pending-asks` lists it: `ray serve`'s fields and the asking agent and its next state. */
export function pendingAskJson(
  runId: string,
  ask: AgentAsk,
  staged: { files: FileRecord[]; problems: string[] } | undefined,
) {
  const affordance = affordanceOf(ask.files);
  return {
    run_id: runId,
    ask_id: ask.id,
    agent_id: ask.agent_id,
    prompt: ask.prompt,
    created_at: ask.created_at,
    ...(ask.timeout_at ? { timeout_at: ask.timeout_at } : {}),
    next_state: ask.next,
    ...gateJson(ask),
    ...(affordance ? { file_affordance: affordance } : {}),
    ...(staged && staged.files.length > 0 ? { staged_files: staged.files } : {}),
    ...(staged && staged.problems.length > 0 ? { staging_errors: staged.problems } : {}),
  };
}
