import type { RunEvent } from '../../machines/run-events.js';
import type { AgentAsk } from '../../machines/types.js';

/** What a notification is about. */
export type NotificationEvent =
  | 'ask.created'
  | 'run.asking'
  | 'run.completed'
  | 'run.failed'
  | 'run.paused'
  | 'run.budget_exceeded';

/** A question an agent asked, as a notification shows it. */
export interface NotifiedAsk {
  ask_id: string;
  agent_id: string;
  prompt: string;
  /** ISO 8601 times. */
  created_at: string;
  timeout_at?: string;
}

/**
 * The JSON object every hook receives (on a command's stdin and in
 * `RAYMOND_EVENT`, or as a POST body). Field names are snake_case, as in
 * `--json` and the state file.
 */
export interface Notification {
  event: NotificationEvent;
  /** When it was sent, ISO 8601. */
  at: string;
  run_id: string;
  /** The short name of the run's workflow (its folder, or its package without the extension). */
  workflow: string;
  /** The run's `--name` label, when it has one. */
  name?: string;
  status?: string;
  total_cost_usd?: number;
  error?: string;
  /** run.completed: every agent's result, by agent id. */
  results?: Record<string, string>;
  /** ask.created: the question. */
  ask?: NotifiedAsk;
  /** run.asking: every question waiting for an answer. */
  asks?: NotifiedAsk[];
  /** The command that goes on with the run, when it stopped before its end. */
  resume?: string;
}

/** The run a notification is about: what the run's events alone do not say. */
export interface NotifiedRun {
  runId: string;
  workflow: string;
  name?: string;
  /** The command that resumes the run: `raymond --resume ID` (with `--state-dir` when one was given). */
  resume: string;
}

type RunFinished = Extract<RunEvent, { type: 'run.finished' }>;

/** The event each final status is told as; a run still `running` was interrupted, and tells nothing. */
const EVENT_OF: Partial<Record<RunFinished['status'], NotificationEvent>> = {
  completed: 'run.completed',
  failed: 'run.failed',
  paused: 'run.paused',
  budget_exceeded: 'run.budget_exceeded',
  asking: 'run.asking',
};

/** A pending ask as a notification shows it. */
function notifiedAsk(a: AgentAsk): NotifiedAsk {
  return {
    ask_id: a.id,
    agent_id: a.agent_id,
    prompt: a.prompt,
    created_at: a.created_at,
    ...(a.timeout_at ? { timeout_at: a.timeout_at } : {}),
  };
}

/** The notification that an agent asked a question: sent as it is asked, with the command that answers it. */
export function askNotification(
  ask: AgentAsk,
  run: NotifiedRun,
  at: Date = new Date(),
): Notification {
  const n: Notification = {
    event: 'ask.created',
    at: at.toISOString(),
    run_id: run.runId,
    workflow: run.workflow,
  };
  if (run.name !== undefined) n.name = run.name;
  n.ask = notifiedAsk(ask);
  n.resume = run.resume;
  return n;
}

/**
 * The notification for the end of a run, or undefined when its status is
 * not one that is told (an interrupted run ends `running`). `results` are
 * the agents' results (sent with run.completed); `at` is the time sent.
 */
export function runNotification(
  finished: RunFinished,
  run: NotifiedRun,
  results: Record<string, string> = {},
  at: Date = new Date(),
): Notification | undefined {
  const event = EVENT_OF[finished.status];
  if (event === undefined) return undefined;
  const n: Notification = {
    event,
    at: at.toISOString(),
    run_id: run.runId,
    workflow: run.workflow,
  };
  if (run.name !== undefined) n.name = run.name;
  n.status = finished.status;
  n.total_cost_usd = finished.totalCostUsd;
  if (finished.error !== undefined) n.error = finished.error;
  if (event === 'run.completed') n.results = results;
  else n.resume = run.resume;
  if (event === 'run.asking') n.asks = (finished.asks ?? []).map(notifiedAsk);
  return n;
}
