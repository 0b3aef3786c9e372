import { closeSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import type { RunEvent } from '../../machines/run-events.js';
import { AppendFile } from '../state/append-file.js';
import type { RunRecord, RunSource, StepOutcomeKind, StepRecord } from './history-types.js';
import { historyFiles } from './history-paths.js';
import type { RunSoFar } from './run-so-far.js';

/** Which run a writer records, and where. */
export interface HistoryRun {
  root: string;
  key: string;
  run: string;
  workflow: string;
  path: string;
  fingerprint: string;
  source: RunSource;
  /** When the run first started (a resumed run keeps its first start). */
  startedAt: number;
  /** Agents live when this part of the run starts. */
  live: number;
  agents: number;
  /** A resumed run: what its earlier sessions recorded, which its run record adds to. */
  before?: RunSoFar;
}

/** Whether a file ends in the middle of a line (a write a kill cut short). */
function endsMidLine(path: string): boolean {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return false;
  }
  if (size === 0) return false;
  const fd = openSync(path, 'r');
  try {
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes one run into the history as its events come: a step record per
 * `step.measured`, and a run record at `run.finished`. Lines are appended
 * in batches as the debug log's are (one system call per 50 ms), so at
 * fan-out the history costs a string per step. A failure to write is
 * reported once and the history is given up for this run; the run goes on.
 */
export class HistoryWriter {
  private readonly steps: AppendFile;
  private readonly runs: AppendFile;
  private live: number;
  private maxLive: number;
  private agents: number;
  /** The run's forked workers (a resumed run's earlier ones too): their start state and what they cost so far. */
  private readonly workers = new Map<string, { state: string; costUsd: number }>();
  private broken = false;

  constructor(
    private readonly run: HistoryRun,
    private readonly warn: (text: string) => void,
  ) {
    const files = historyFiles(run.root, run.key);
    const fail = (err: unknown) => this.fail(err);
    this.steps = new AppendFile(files.steps, fail);
    this.runs = new AppendFile(files.runs, fail);
    this.live = run.live;
    this.maxLive = Math.max(run.live, run.before?.maxLive ?? 0);
    this.agents = run.agents;
    // A resumed run's record covers the whole run: its earlier sessions' workers go on costing here.
    for (const [id, w] of run.before?.workers ?? []) this.workers.set(id, { ...w });
    try {
      mkdirSync(files.dir, { recursive: true });
      if (endsMidLine(files.steps)) this.steps.write('\n');
      if (endsMidLine(files.runs)) this.runs.write('\n');
    } catch (err) {
      this.fail(err);
    }
  }

  private fail(err: unknown): void {
    if (this.broken) return;
    this.broken = true;
    this.steps.close();
    this.runs.close();
    this.warn(
      `the run history could not be written (${err instanceof Error ? err.message : String(err)}); the run goes on without it`,
    );
  }

  /** Takes one event of the run. */
  event(e: RunEvent): void {
    if (this.broken) return;
    switch (e.type) {
      case 'step.measured':
        this.steps.write(`${JSON.stringify(this.stepRecord(e))}\n`);
        {
          const worker = this.workers.get(e.agentId);
          if (worker) worker.costUsd += e.costUsd;
        }
        return;
      case 'agent.forked':
        this.workers.set(e.id, { state: e.state, costUsd: 0 });
        this.agents++;
        this.live++;
        this.maxLive = Math.max(this.maxLive, this.live);
        return;
      case 'step.done':
        if (e.to === null) this.live--;
        return;
      case 'agent.failed':
        this.live--;
        return;
      case 'run.finished':
        this.runs.write(`${JSON.stringify(this.runRecord(e))}\n`);
        return;
      default:
        return;
    }
  }

  private stepRecord(e: Extract<RunEvent, { type: 'step.measured' }>): StepRecord {
    const r: StepRecord = {
      v: 1,
      run: this.run.run,
      at: e.startedAt + e.wallMs,
      agent: e.agentId,
      state: e.state,
      backend: e.backend,
      turns: e.turns,
      retries: e.retries,
      reminders: e.reminders,
      costUsd: e.costUsd,
      tokens: e.tokens,
      wallMs: e.wallMs,
      cpuMs: e.cpuMs,
      outcome: e.outcome as StepOutcomeKind,
    };
    if (e.scope !== undefined) r.scope = e.scope;
    if (e.model !== undefined) r.model = e.model;
    if (e.answeredBy !== undefined) r.answeredBy = e.answeredBy;
    if (e.width !== undefined) r.width = e.width;
    return r;
  }

  private runRecord(e: Extract<RunEvent, { type: 'run.finished' }>): RunRecord {
    const workers: NonNullable<RunRecord['workers']> = {};
    for (const w of this.workers.values()) {
      const into = (workers[w.state] ??= { count: 0, costUsd: 0 });
      into.count++;
      into.costUsd += w.costUsd;
    }
    const { root: _root, key: _key, live: _live, before, ...run } = this.run;
    return {
      v: 1,
      ...run,
      endedAt: Date.now(),
      status: e.status,
      costUsd: e.totalCostUsd,
      steps: (before?.steps ?? 0) + e.steps,
      agents: this.agents,
      maxLive: this.maxLive,
      ...(this.workers.size > 0 ? { workers } : {}),
    };
  }

  /** Writes what waits and closes the files. */
  close(): void {
    this.steps.close();
    this.runs.close();
  }
}
