import type {
  RunRecord,
  RunSummary,
  StateHistory,
  StepRecord,
  WorkflowHistory,
} from './history-types.js';
import { countAnswered, stateKeyOf } from '../../machines/cost-table.js';

/** How many of the latest samples (steps, runs, forks) the index keeps per series. */
export const SAMPLE_WINDOW = 10_000;

/** Appends to a window of samples; it is cut back to SAMPLE_WINDOW once it holds twice as many (amortised O(1)). */
function push<T>(into: T[], value: T): void {
  into.push(value);
  if (into.length >= 2 * SAMPLE_WINDOW) into.splice(0, into.length - SAMPLE_WINDOW);
}

/** Cuts every window of an index to SAMPLE_WINDOW, before it is read or written. */
export function trimIndex(index: HistoryIndex): void {
  const trim = <T>(xs: T[]) => {
    if (xs.length > SAMPLE_WINDOW) xs.splice(0, xs.length - SAMPLE_WINDOW);
  };
  trim(index.runs);
  for (const s of Object.values(index.states)) {
    trim(s.costs);
    trim(s.walls);
    trim(s.visits);
    trim(s.widths);
  }
  for (const w of Object.values(index.workers)) trim(w);
}

/** The statuses after which a run takes no more steps: its visits per state are counted then. */
const FINAL = new Set(['completed', 'failed', 'budget_exceeded']);

/**
 * The history index of one workflow: its WorkflowHistory, how far into the
 * logs it has read, and the runs whose steps are counted but whose visits
 * per state are not yet (still running, paused, or killed).
 */
export interface HistoryIndex extends WorkflowHistory {
  v: 1;
  stepsOffset: number;
  runsOffset: number;
  /** Per run not yet final: steps per state so far. */
  open: Record<string, Record<string, number>>;
}

/** An index with nothing read yet. */
export function emptyIndex(key: string): HistoryIndex {
  return {
    v: 1,
    key,
    workflow: '',
    path: '',
    fingerprint: '',
    stepsOffset: 0,
    runsOffset: 0,
    runCount: 0,
    totalUsd: 0,
    runs: [],
    states: {},
    workers: {},
    open: {},
  };
}

function stateOf(index: HistoryIndex, r: StepRecord): StateHistory {
  const key = stateKeyOf(r);
  return (index.states[key] ??= {
    state: key,
    runs: 0,
    steps: 0,
    turns: 0,
    retries: 0,
    reminders: 0,
    failures: 0,
    costs: [],
    walls: [],
    visits: [],
    widths: [],
    backend: r.backend,
  });
}

/** Adds one step record. */
export function foldStep(index: HistoryIndex, r: StepRecord): void {
  const s = stateOf(index, r);
  const open = (index.open[r.run] ??= {});
  const key = stateKeyOf(r);
  if (open[key] === undefined) s.runs++;
  open[key] = (open[key] ?? 0) + 1;
  s.steps++;
  s.turns += r.turns;
  s.retries += r.retries;
  s.reminders += r.reminders;
  if (r.outcome === 'failed') s.failures++;
  push(s.costs, r.costUsd);
  if (s.latest?.run === r.run) s.latest.costs.push(r.costUsd);
  else s.latest = { run: r.run, costs: [r.costUsd] };
  push(s.walls, r.wallMs);
  if (r.width !== undefined) push(s.widths, r.width);
  s.backend = r.backend;
  if (r.model !== undefined) s.model = r.model;
  else delete s.model;
  const answeredBy = countAnswered(s.answeredBy, r.answeredBy);
  if (answeredBy) s.answeredBy = answeredBy;
}

/** Adds one run record: the last record of a run replaces its earlier ones in `runs`. */
export function foldRun(index: HistoryIndex, r: RunRecord, at: Map<string, number>): void {
  const summary: RunSummary = {
    run: r.run,
    startedAt: r.startedAt,
    endedAt: r.endedAt,
    status: r.status,
    costUsd: r.costUsd,
    steps: r.steps,
    fingerprint: r.fingerprint,
    maxLive: r.maxLive,
  };
  // A run that paused and went on has a record per part: the latest stands for it.
  const i = at.get(r.run);
  const before = i === undefined ? undefined : index.runs[i];
  if (before?.run === r.run) {
    index.totalUsd += r.costUsd - before.costUsd;
    index.runs[i!] = {
      ...summary,
      steps: before.steps + r.steps,
      maxLive: Math.max(before.maxLive, r.maxLive),
    };
  } else {
    index.runCount++;
    index.totalUsd += r.costUsd;
    if (index.runs.length + 1 >= 2 * SAMPLE_WINDOW) {
      index.runs.splice(0, index.runs.length + 1 - SAMPLE_WINDOW);
      at.clear();
      index.runs.forEach((x, n) => at.set(x.run, n));
    }
    at.set(r.run, index.runs.length);
    index.runs.push(summary);
  }
  index.workflow = r.workflow;
  index.path = r.path;
  index.fingerprint = r.fingerprint;
  for (const [state, w] of Object.entries(r.workers ?? {}))
    if (w.count > 0) push((index.workers[state] ??= []), w.costUsd / w.count);
  if (!FINAL.has(r.status)) return;
  const open = index.open[r.run];
  if (!open) return;
  for (const [key, n] of Object.entries(open)) {
    const s = index.states[key];
    if (s) push(s.visits, n);
  }
  delete index.open[r.run];
}

/** Where each run is in `runs`, for foldRun. */
export function runPositions(index: HistoryIndex): Map<string, number> {
  return new Map(index.runs.map((r, i) => [r.run, i]));
}
