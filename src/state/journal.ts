import { stackChange } from '../../machines/frame-stack.js';
import type { Dirty, RunStore } from '../../machines/run-store.js';
import type { AgentFields, Frame, FrameStack, WorkflowState } from '../../machines/types.js';
import {
  compactAgent,
  type Compact,
  type WrittenAgent,
  type WrittenState,
} from '../../machines/written-agent.js';
import { RaymondError } from '../errors.js';
import { journalRecord } from './state-schema.js';

/**
 * An agent in a journal line. Its return stack is written as a change to
 * the one the state file had before the line: keep the bottom `stack_keep`
 * frames, then push `stack_push` (bottom first; absent when empty). A step
 * pushes or pops one frame, so the line does not grow with the depth. Lines
 * written before this format hold the whole `stack` instead; both fold.
 */
export type JournalAgent = Compact<AgentFields> &
  ({ stack: Frame[] } | { stack_keep: number; stack_push?: Frame[] });

/**
 * One group-committed batch of changes, a line of `<id>.journal`. Its size
 * depends on what changed, not on how many agents the run has nor on how
 * deep their stacks are.
 */
export interface JournalBatch {
  seq: number;
  meta: Pick<WorkflowState, 'status' | 'total_cost_usd' | 'updated_at'> & {
    options?: WorkflowState['options'];
    error?: string | null;
    /** Written when the widths changed since the last line. */
    account_widths?: WorkflowState['account_widths'];
  };
  agents?: JournalAgent[];
  results?: Record<string, string>;
  fork_counters?: Record<string, number>;
  session_costs?: Record<string, number>;
}

/**
 * Each agent's return stack as the state file on disk has it (snapshot and
 * journal folded), the base of the next line's stack changes. Agents whose
 * stack is empty are left out.
 */
export type WrittenStacks = Map<string, FrameStack>;

/** Notes that the state file now holds `stack` for agent `id`. */
export function noteWritten(written: WrittenStacks, id: string, stack: FrameStack): void {
  if (stack === null) written.delete(id);
  else written.set(id, stack);
}

function pick<T>(keys: Set<string>, from: Record<string, T>): Record<string, T> | undefined {
  if (keys.size === 0) return undefined;
  const out: Record<string, T> = {};
  for (const k of keys) if (from[k] !== undefined) out[k] = from[k];
  return out;
}

/**
 * Agents per piece of a journal line or a snapshot: a fork of 100,000 workers
 * is written a piece at a time, never built as one string of every agent.
 */
export const AGENTS_PER_PIECE = 1000;

/**
 * The journal line for the changes in `dirty`, in pieces to write one after
 * the other (a line of 100,000 new agents is some 20 MB); `written` holds the
 * stacks the state file has so far. The run's options are left out when the
 * state file already holds them as they are (`withOptions` false): they
 * change only at a gate, and were half of a script step's line.
 */
export function* journalParts(
  store: RunStore,
  dirty: Dirty,
  seq: number,
  written: WrittenStacks,
  withOptions = true,
): Generator<string> {
  const m = store.meta;
  const head: JournalBatch = {
    seq,
    meta: {
      status: m.status,
      total_cost_usd: m.total_cost_usd,
      updated_at: m.updated_at,
      ...(withOptions ? { options: m.options } : {}),
      error: m.error ?? null,
      ...(dirty.widths && m.account_widths ? { account_widths: m.account_widths } : {}),
    },
  };
  let text = JSON.stringify(head).slice(0, -1);
  let count = 0;
  for (const id of dirty.agents) {
    const record = store.agents.get(id);
    if (!record) continue;
    const { stack, ...fields } = compactAgent(record, m.results, store.defaultTaskFolder);
    const change = stackChange(written.get(id) ?? null, stack);
    const agent: JournalAgent = {
      ...fields,
      stack_keep: change.keep,
      ...(change.push.length > 0 ? { stack_push: change.push } : {}),
    };
    text += `${count === 0 ? ',"agents":[' : ','}${JSON.stringify(agent)}`;
    if (++count % AGENTS_PER_PIECE === 0) {
      yield text;
      text = '';
    }
  }
  if (count > 0) text += ']';
  const tail: Omit<JournalBatch, 'seq' | 'meta'> = {};
  const results = pick(dirty.results, m.results);
  if (results) tail.results = results;
  const counters = pick(dirty.forkCounters, m.fork_counters);
  if (counters) tail.fork_counters = counters;
  const costs = pick(dirty.sessionCosts, m.session_costs);
  if (costs) tail.session_costs = costs;
  const rest = JSON.stringify(tail).slice(1, -1);
  yield `${text}${rest ? `,${rest}` : ''}}\n`;
}

/** The whole journal line for the changes in `dirty` (journalParts, joined). */
export function journalLine(
  store: RunStore,
  dirty: Dirty,
  seq: number,
  written: WrittenStacks,
  withOptions = true,
): string {
  return [...journalParts(store, dirty, seq, written, withOptions)].join('');
}

/**
 * An agent of a journal line applied to the agent as it was. `owned` holds
 * the stack arrays this fold made itself: those it changes in place, so a
 * line costs what it changed, and the snapshot's arrays are copied once.
 */
function foldAgent(
  before: WrittenAgent | undefined,
  entry: JournalAgent,
  owned: Set<Frame[]>,
): WrittenAgent | undefined {
  if ('stack' in entry) return entry;
  const { stack_keep: keep, stack_push: push = [], ...fields } = entry;
  const old = before?.stack ?? [];
  if (!Number.isInteger(keep) || keep < 0 || keep > old.length || !Array.isArray(push))
    return undefined;
  let stack = old;
  if (owned.has(stack)) stack.length = keep;
  else owned.add((stack = old.slice(0, keep)));
  for (const frame of push) stack.push(frame);
  return { ...fields, stack };
}

/**
 * Folds a journal into its snapshot, both as written (readStateFile then
 * gives the agents back what was left out: machines/written-agent.ts). Batches already in the snapshot (by
 * `journal_seq`) are skipped; a torn last line is a batch whose write never
 * completed, and so was never acknowledged: it is dropped.
 */
export function applyJournal(state: WrittenState, text: string, file: string): WrittenState {
  const lines = text.split('\n');
  // The snapshot's and the lines' agents are as written (compact) until the end.
  const agents = new Map<string, WrittenAgent>(state.agents.map((a) => [a.id, a]));
  const owned = new Set<Frame[]>();
  const out: WrittenState = {
    ...state,
    results: { ...state.results },
    fork_counters: { ...state.fork_counters },
    session_costs: { ...state.session_costs },
  };
  const damaged = (i: number, why?: string) =>
    new RaymondError(
      'ERR_STATE_FILE',
      `the journal is damaged at line ${i + 1}${why ? `: ${why}` : ''}`,
      { file },
    );
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    let data: unknown;
    try {
      data = JSON.parse(line);
    } catch {
      if (lines.slice(i + 1).every((l) => l.trim() === '')) break;
      throw damaged(i);
    }
    // A torn write never parses (it lacks the closing brace), so valid JSON of another shape is damage, wherever it is.
    if (!journalRecord.check(data)) throw damaged(i, 'valid JSON, but not a journal record');
    // The schema checks the line's own fields; its agents are checked with the folded state (state-file.ts).
    const batch = data as JournalBatch;
    if (batch.seq <= (out.journal_seq ?? 0)) continue;
    const { error, ...meta } = batch.meta;
    Object.assign(out, meta);
    if (error === null || error === undefined) delete out.error;
    else out.error = error;
    for (const a of batch.agents ?? []) {
      const folded = foldAgent(agents.get(a.id), a, owned);
      if (!folded) throw damaged(i);
      agents.set(a.id, folded);
    }
    Object.assign(out.results, batch.results);
    Object.assign(out.fork_counters, batch.fork_counters);
    Object.assign(out.session_costs, batch.session_costs);
    out.journal_seq = batch.seq;
  }
  out.agents = [...agents.values()];
  return out;
}
