/**
 * The records of the run history (`.raymond/history/`), and the summary of
 * one workflow's history that `raymond stats`, `raymond plan` and the cost
 * gate read. Plain JSON, one record per line in the history's logs.
 */

/** Which agent CLI ran a step (its backend's name); `script` for a script state. */
export type StepBackend = string;

/**
 * How a step ended: the kind of its transition, or `failed` (its agent
 * failed or paused on it), or `stopped` (the run was stopped during it).
 */
export type StepOutcomeKind =
  | 'goto'
  | 'reset'
  | 'call'
  | 'function'
  | 'fork'
  | 'result'
  | 'ask'
  | 'call-workflow'
  | 'function-workflow'
  | 'reset-workflow'
  | 'failed'
  | 'stopped';

/** One step of one run: a line of `<workflow-key>/steps.jsonl`. */
export interface StepRecord {
  v: 1;
  /** The run's id. */
  run: string;
  /** When the step ended (epoch ms). */
  at: number;
  agent: string;
  /** The state file that ran. */
  state: string;
  /** The key of the workflow the state is in, when it is not the run's own (a cross-workflow callee). */
  scope?: string;
  backend: StepBackend;
  /** The model asked for (markdown states), as the state or the run named it; absent: the CLI's default. */
  model?: string;
  /** The models that answered its turns (a fallback model's too), as the agent CLI reported them. */
  answeredBy?: string[];
  /** Agent CLI invocations the step took (0 for a script). */
  turns: number;
  retries: number;
  reminders: number;
  costUsd: number;
  /** Tokens of all its turns (input + output + cache), as the agent CLI reported them. */
  tokens: number;
  wallMs: number;
  /** CPU time of the step's processes (the agent CLI or the script, with their children), as last sampled. */
  cpuMs: number;
  outcome: StepOutcomeKind;
  /** Workers a `<fork>` created. */
  width?: number;
  /** Rebuilt from a state file and its debug log: turns, tokens and CPU time are not known. */
  rebuilt?: true;
}

/** Where a run ran: in `raymond` itself, under `raymond serve`, or with its steps on queue workers. */
export type RunSource = 'local' | 'served' | 'queued';

/** One run, as it stood when it last stopped: a line of `<workflow-key>/runs.jsonl` (the last line of a run wins). */
export interface RunRecord {
  v: 1;
  run: string;
  /** The workflow's short name, and where it is (its folder, file or zip, absolute). */
  workflow: string;
  path: string;
  /** A hash of the workflow's files when the run started: runs of different versions can be told apart. */
  fingerprint: string;
  source: RunSource;
  startedAt: number;
  endedAt: number;
  status: string;
  costUsd: number;
  steps: number;
  /** Agents the run had in all, and the most that were live at once. */
  agents: number;
  maxLive: number;
  /** Each forked worker's start state with what the workers that started there cost in all, and how many there were. */
  workers?: Record<string, { count: number; costUsd: number }>;
  rebuilt?: true;
}

/** A run as the index keeps it. */
export type RunSummary = Pick<
  RunRecord,
  'run' | 'startedAt' | 'endedAt' | 'status' | 'costUsd' | 'steps' | 'fingerprint' | 'maxLive'
>;

/** What the history knows of one state of a workflow (all versions). */
export interface StateHistory {
  state: string;
  /** Runs the state ran in, and its steps in all. */
  runs: number;
  steps: number;
  turns: number;
  retries: number;
  reminders: number;
  failures: number;
  /**
   * The latest steps' cost (USD) and wall time (ms), oldest first, at most
   * SAMPLE_WINDOW of them: percentiles describe how the state runs now, and
   * the index stays small however long the history.
   */
  costs: number[];
  walls: number[];
  /** Steps of the state per run it ran in, one entry per run (loops show as counts above 1); the latest runs. */
  visits: number[];
  /** Widths of the forks the state made, one entry per fork; the latest forks. */
  widths: number[];
  /** The steps of the latest run that ran the state: their costs, which `raymond stats` holds against the earlier ones. */
  latest?: { run: string; costs: number[] };
  /** The model its latest step ran with, and its backend. */
  model?: string;
  /** Its steps by the model that answered them (a fallback model's too), over the whole history. */
  answeredBy?: Record<string, number>;
  backend: StepBackend;
}

/** One workflow's history, as the index holds it: what stats, plan and the gate read. */
export interface WorkflowHistory {
  key: string;
  workflow: string;
  path: string;
  /** Fingerprint of the latest run. */
  fingerprint: string;
  /** Runs in all, and what they cost in all. */
  runCount: number;
  totalUsd: number;
  /** The latest runs (finished or stopped), oldest first, at most SAMPLE_WINDOW of them. */
  runs: RunSummary[];
  /** Per state (by state file name; a callee's states as `<scope>:<state>`). */
  states: Record<string, StateHistory>;
  /** Per forked worker's start state: the mean cost of a worker (its whole life), one entry per run that forked there (the latest runs). */
  workers: Record<string, number[]>;
  /** Log lines that are no valid record (cut short by a kill, or written by something else): skipped, and counted here. */
  skipped?: number;
}

/** A figure from the history (`seen`) or from the prior (`guess`); `unbounded` when a loop or fork has no history to bound it. */
export interface Forecast {
  /** Expected (p50) and high (p90) cost in USD, and time in ms. */
  p50Usd: number;
  p90Usd: number;
  p50Ms: number;
  p90Ms: number;
  basis: 'history' | 'guess' | 'free';
  unbounded?: true;
}

/**
 * What the cost gate asks before a step: the forecast of one step of a
 * state, and of one worker that starts at a state (its whole life). Made by
 * src/plan from the history and the workflow; a script forecasts $0.
 */
export interface Forecaster {
  step(scope: string | undefined, state: string): Forecast;
  worker(scope: string | undefined, state: string): Forecast;
  /** A state's `budget:` (USD a visit of it may spend), when it has one: a step's reservation is no more. */
  budgetOf?(scope: string | undefined, state: string): number | undefined;
}
