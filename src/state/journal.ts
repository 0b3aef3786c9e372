import type { Dirty, RunStore } from '../../machines/run-store.js';
import type { AgentRecord, WorkflowState } from '../../machines/types.js';
import { RaymondError } from '../errors.js';

/**
 * One group-committed batch of changes, a line of `<id>.journal`. Its size
 * depends on what changed, not on how many agents the run has.
 */
export interface JournalBatch {
  seq: number;
  meta: Pick<WorkflowState, 'status' | 'total_cost_usd' | 'updated_at' | 'options'> & { error?: string | null };
  agents?: AgentRecord[];
  results?: Record<string, string>;
  fork_counters?: Record<string, number>;
  session_costs?: Record<string, number>;
}

function pick<T>(keys: Set<string>, from: Record<string, T>): Record<string, T> | undefined {
  if (keys.size === 0) return undefined;
  const out: Record<string, T> = {};
  for (const k of keys) if (from[k] !== undefined) out[k] = from[k];
  return out;
}

/** The journal line for the changes in `dirty`. */
export function journalLine(store: RunStore, dirty: Dirty, seq: number): string {
  const m = store.meta;
  const batch: JournalBatch = { seq, meta: { status: m.status, total_cost_usd: m.total_cost_usd, updated_at: m.updated_at, options: m.options, error: m.error ?? null } };
  if (dirty.agents.size > 0) batch.agents = [...dirty.agents].map((id) => store.agents.get(id)!).filter(Boolean);
  const results = pick(dirty.results, m.results);
  if (results) batch.results = results;
  const counters = pick(dirty.forkCounters, m.fork_counters);
  if (counters) batch.fork_counters = counters;
  const costs = pick(dirty.sessionCosts, m.session_costs);
  if (costs) batch.session_costs = costs;
  return `${JSON.stringify(batch)}\n`;
}

/**
 * Folds a journal into its snapshot. Batches already in the snapshot (by
 * `journal_seq`) are skipped; a torn last line is a batch whose write never
 * completed, and so was never acknowledged: it is dropped.
 */
export function applyJournal(state: WorkflowState, text: string, file: string): WorkflowState {
  const lines = text.split('\n');
  const agents = new Map(state.agents.map((a) => [a.id, a]));
  const out: WorkflowState = { ...state, results: { ...state.results }, fork_counters: { ...state.fork_counters }, session_costs: { ...state.session_costs } };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    let batch: JournalBatch;
    try {
      batch = JSON.parse(line) as JournalBatch;
    } catch {
      if (lines.slice(i + 1).every((l) => l.trim() === '')) break;
      throw new RaymondError('ERR_STATE_FILE', `the journal is damaged at line ${i + 1}`, { file });
    }
    if (batch.seq <= (out.journal_seq ?? 0)) continue;
    const { error, ...meta } = batch.meta;
    Object.assign(out, meta);
    if (error === null || error === undefined) delete out.error;
    else out.error = error;
    for (const a of batch.agents ?? []) agents.set(a.id, a);
    Object.assign(out.results, batch.results);
    Object.assign(out.fork_counters, batch.fork_counters);
    Object.assign(out.session_costs, batch.session_costs);
    out.journal_seq = batch.seq;
  }
  out.agents = [...agents.values()];
  return out;
}
