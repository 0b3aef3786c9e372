import type {
  RunRecord,
  RunSummary,
  StateHistory,
  StepRecord,
  WorkflowHistory,
} from './history-types.js';

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
    runs: [],
    states: {},
    workers: {},
    open: {},
  };
}

/** The key of a step's state in `states`: a cross-workflow callee's states carry their workflow's key. */
export function stateKeyOf(r: Pick<StepRecord, 'state' | 'scope'>): string {
  return r.scope === undefined ? r.state : `${r.scope}:${r.state}`;
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
  s.costs.push(r.costUsd);
  if (s.latest?.run === r.run) s.latest.costs.push(r.costUsd);
  else s.latest = { run: r.run, costs: [r.costUsd] };
  s.walls.push(r.wallMs);
  if (r.width !== undefined) s.widths.push(r.width);
  s.backend = r.backend;
  if (r.model !== undefined) s.model = r.model;
  else delete s.model;
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
  const i = at.get(r.run);
  if (i === undefined) {
    at.set(r.run, index.runs.length);
    index.runs.push(summary);
  } else {
    const before = index.runs[i]!;
    index.runs[i] = {
      ...summary,
      steps: before.steps + r.steps,
      maxLive: Math.max(before.maxLive, r.maxLive),
    };
  }
  index.workflow = r.workflow;
  index.path = r.path;
  index.fingerprint = r.fingerprint;
  for (const [state, w] of Object.entries(r.workers ?? {}))
    if (w.count > 0) (index.workers[state] ??= []).push(w.costUsd / w.count);
  if (!FINAL.has(r.status)) return;
  const open = index.open[r.run];
  if (!open) return;
  for (const [key, n] of Object.entries(open)) index.states[key]?.visits.push(n);
  delete index.open[r.run];
}

/** Where each run is in `runs`, for foldRun. */
export function runPositions(index: HistoryIndex): Map<string, number> {
  return new Map(index.runs.map((r, i) => [r.run, i]));
}
