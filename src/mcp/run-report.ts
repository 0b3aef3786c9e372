import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { gateJson } from '../../machines/gate.js';
import { usd } from '../../machines/money.js';
import type { ServedRun } from '../serve/served-run.js';
import type { RunReport } from './tool-schemas.js';

/** Why a call returned while the run goes on. */
export type Returned = 'ended' | 'asking' | 'waited' | 'at-once' | 'closing';

/** The run as it stands, as every tool's structured result gives it. */
export function runReport(run: ServedRun): Omit<RunReport, 'message'> {
  const asks = [...run.asks.values()]
    .filter((a) => !run.answering.has(a.id))
    .sort((a, b) => a.created_at.localeCompare(b.created_at))
    .map((a) => ({
      ask_id: a.id,
      agent_id: a.agent_id,
      question: a.prompt,
      ...(a.timeout_at ? { timeout_at: a.timeout_at } : {}),
      ...gateJson(a),
    }));
  return {
    run_id: run.id,
    workflow_id: run.workflowId,
    status: run.status,
    // Sums of floating-point costs carry noise past the micro-dollar (0.19153130000000002).
    cost_usd: Math.round(run.costUsd * 1e6) / 1e6,
    budget_usd: run.budgetUsd,
    steps: run.steps,
    elapsed_seconds: Math.round(((run.endedAt ?? Date.now()) - run.startedAt) / 100) / 10,
    ...(run.result !== undefined ? { result: run.result } : {}),
    ...(run.error !== undefined ? { error: run.error } : {}),
    asks,
  };
}

/** Statuses in which a run stopped short of its end for a reason the caller should see as an error. */
const FAILED = new Set(['failed', 'budget_exceeded', 'stopped']);

/**
 * A tool's answer: the text a model reads (the result of a run that
 * completed; otherwise what happened and which tool to call next) and the
 * run as structured content.
 */
export function toolResult(run: ServedRun, why: Returned, waitedSeconds = 0): CallToolResult {
  const report = runReport(run);
  const spent = `${usd(report.cost_usd)} of ${usd(report.budget_usd)}`;
  const follow = `{"run_id": "${run.id}"}`;
  let text: string;
  if (run.ended) {
    text =
      run.status === 'completed'
        ? (report.result ?? `run ${run.id} completed with no result`)
        : `run ${run.id} ${run.status}${report.error ? `: ${report.error}` : ''} (${spent})`;
  } else if (report.asks.length > 0) {
    const lines = report.asks.map(
      (a) =>
        `- ask_id ${a.ask_id}: ${a.question}${a.gate ? ' (the cost gate: answer yes, stop, or a new amount in USD)' : ''}`,
    );
    text = [
      `run ${run.id} is waiting for an answer (${spent} spent so far):`,
      ...lines,
      `Ask the person, then call raymond_answer with {"run_id": "${run.id}", "ask_id": ..., "answer": ...}.`,
    ].join('\n');
  } else if (why === 'closing') {
    text = `the Raymond server is shutting down: run ${run.id} (${report.steps} steps, ${spent}) stays resumable and goes on when the server starts again; then call raymond_status with ${follow}.`;
  } else if (run.heldBy !== undefined) {
    text = `run ${run.id} is ${run.status}, run by another Raymond server of this project (process ${run.heldBy})`;
  } else {
    const after = why === 'waited' ? ` after ${waitedSeconds} s` : '';
    text = `run ${run.id} is still ${run.status}${after} (${report.steps} steps, ${spent}); it goes on: call raymond_status with ${follow} to wait for it, or raymond_cancel to stop it.`;
  }
  return {
    content: [{ type: 'text', text }],
    structuredContent: { message: text, ...report },
    ...(run.ended && FAILED.has(run.status) ? { isError: true } : {}),
  };
}
