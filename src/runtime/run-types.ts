import type { PriceOverrides } from '../agents/agent-backend.js';
import type { InspectionEvent } from 'xstate';
import type { RunEventSink } from '../../machines/run-events.js';
import type { AgentAsk, RunStatus, WorktreeRef } from '../../machines/types.js';
import type { StateExecutor } from '../executors/executor.js';
import type { Forecaster, RunSource } from '../history/history-types.js';
import type { Scope } from '../scope/scope.js';
import type { PersisterStats } from '../state/persister.js';
import type { WorktreePoolStats } from '../worktrees/worktree-pool.js';

// What a front end (ray run, serve) hands a run and gets back: kept apart from compose-run.ts, so
// those that only read an outcome or drive a run's control do not import the composition root.

/** What a run is given besides its workflow and settings: where its events go and how it is stopped. */
export interface RunHooks {
  /** Receives every event of the run, in order. */
  onEvent: RunEventSink;
  /** Where parsing and rendering run: by default small outputs inline, the rest on worker threads; or all `pool`, or all `inline` (benchmarks). */
  language?: 'pool' | 'inline';
  /** Aborted: start no new step, let running ones finish. */
  drain?: AbortSignal;
  /** Aborted: stop every step now. Either way the run stays resumable. */
  kill?: AbortSignal;
  /** Replaces the Claude Code executor (benchmarks, tests). */
  markdown?: StateExecutor;
  /** Wraps the script executor (`raymond test` stubs some script states). */
  script?: (real: StateExecutor) => StateExecutor;
  stats?: PersisterStats;
  /** Receives every inspection event of the actor system (`--inspect`, `--trace`). */
  inspect?: (event: InspectionEvent) => void;
  /** Makes the forecasts the cost gate (`--confirm-over`) weighs, when it is on (src/plan/run-forecaster.ts); absent: the gate never asks. */
  forecaster?: (run: ForecastRun) => Promise<Forecaster>;
  /** Where the run runs, as the history records it: `served` under `raymond serve`; absent: here (or `queued`, with --queue). */
  source?: Extract<RunSource, 'served'>;
  /** Called once the run started, with a way to answer its asks while it runs (`--on-ask=prompt`). */
  onControl?: (control: RunControl) => void;
}

/** What a run's forecaster is made from: its workflow as opened, its project, its model and input. */
export interface ForecastRun {
  scope: Scope;
  projectRoot: string;
  model?: string;
  input?: string;
  /** The config's `[raymond.prices]`, over each backend's own table. */
  prices?: PriceOverrides;
  /** Says (once) what the forecast had to do without: a history it could not read, lines it skipped. */
  warn?: (text: string) => void;
}

/** What a front end can do to a running run. */
export interface RunControl {
  /** Answers a pending ask; an ask already answered or timed out is left as it is. */
  answer(askId: string, text: string): void;
}

/** How a run ended (or paused): its status, results, cost, and what it left behind. */
export interface RunOutcome {
  workflowId: string;
  /** Short name of the run's own workflow (its folder's, or its file's without extension). */
  workflow: string;
  status: RunStatus;
  totalCostUsd: number;
  results: Record<string, string>;
  error?: string;
  stateFile: string;
  /** Agents paused on a usage limit with a known reset time, if that is all that is left. */
  waitUntil?: number;
  /** Every agent's worktree, as it stands at the end of the run. */
  worktrees: Array<WorktreeRef & { agent: string }>;
  /** What the worktree pool did: folders made, reused, most alive at once. */
  worktreePool: WorktreePoolStats;
  /** What this process wrote to the state folder. */
  stateWrites: { writes: number; bytes: number; snapshots: number };
  /** The asks still waiting for an answer, oldest first (the run's status is `asking` when nothing else is left). */
  asks: AgentAsk[];
}
