import type { AgentFields, WorktreeRef } from '../../machines/types.js';
import type { SerializedError } from '../errors.js';
import type { PriceOverride } from '../agents/agent-backend.js';
import type { BackendSpec } from '../executors/executor.js';
import type { ResolvedGrant } from '../executors/resolved-grant.js';
import type { Execution, SessionPlan } from '../executors/executor.js';

/** The BullMQ queue of scripts and worktree ends, under the `raymond` key prefix. */
export const QUEUE_NAME = 'steps';
/**
 * The BullMQ queue of markdown turns: a turn waiting for its account's
 * width waits in a place of this queue, never in one a script could take.
 */
export const TURNS_QUEUE = 'turns';
/** Both queues, each worker takes from each. */
export const QUEUE_NAMES = [QUEUE_NAME, TURNS_QUEUE] as const;
/** Which queue a job goes to. */
export const queueOf = (kind: StepJob['kind']): (typeof QUEUE_NAMES)[number] =>
  kind === 'markdown' ? TURNS_QUEUE : QUEUE_NAME;
/** Prefix of every key Raymond keeps in Redis. */
export const KEY_PREFIX = 'raymond';

/** How long a queued job stays valid: while the coordinator waits for it, it pushes the expiry back; a copy put back later is refused. */
export const JOB_VALID_MS = 10 * 60_000;
/** A cancelled job's flag, read by the worker that runs it (set by the coordinator's StepQueue). */
export const cancelKey = (id: string) => `${KEY_PREFIX}:cancel:${id}`;
/**
 * The sessions a worker may let go of now (its live process of each), one
 * `{run, session}` JSON per entry, pushed by the coordinator when an agent
 * stops going on in its session, popped by the worker with its heartbeat.
 * Only a hint: a lost or forged entry costs a cold start, never a result.
 */
export const endedKey = (worker: string) => `${KEY_PREFIX}:ended:${worker}`;

/** A session transcript a turn needs, by its session id and the hash of its blob. */
export interface TranscriptRef {
  id: string;
  sha: string;
  /** pi's file name for it (`<time>_<id>.jsonl`). */
  name?: string;
}

/**
 * How a markdown turn's agent CLI is run, whichever the backend: the run's
 * own settings (BackendRuntime's, less what is this machine's).
 */
export interface TurnJobSettings {
  skipPermissions: boolean;
  /**
   * The backends' own settings, by their run names (Claude Code's
   * `permissionMode`, `warm`...); a worker's own machine settings
   * (`--claude-bin`) win over the run's.
   */
  settings: Readonly<Record<string, unknown>>;
  /** The config's `[raymond.prices]`, for a backend that charges tokens at a price. */
  prices?: Readonly<Record<string, PriceOverride>>;
  /**
   * The run's `--max-parallel`: the ceiling of the account's width the
   * workers share. Absent: the run has no width (`--no-adaptive-width`).
   */
  maxTurns?: number;
}

/**
 * One step (a script, or one Claude Code turn), or the end of an agent's
 * worktree, as the coordinator asks a worker to run it. It is signed whole
 * (job-signing.ts): nothing in it can be changed on the way.
 */
export interface StepJob {
  /**
   * The job's format: a worker refuses another version's jobs in one line
   * (2 had Claude's own `claude` field; 3 put turns in the `steps` queue).
   */
  v: 4;
  kind: 'script' | 'markdown' | 'worktree.finish';
  /** The run's workflow id, and this job's id (the step's id and the turn's number in it). */
  run: string;
  id: string;
  /**
   * Fresh for each time the coordinator queues the job: a worker runs one
   * (id, nonce) at most once (job-claims.ts), and its result names both.
   */
  nonce: string;
  /** Redis's clock (epoch ms) after which no worker starts the job; the coordinator pushes it back while it waits. */
  expires: number;
  /** The coordinator's project root: paths under it are mapped onto each worker's --workdir. */
  root: string;
  agent: AgentFields;
  /** The state file, and how messages name it. */
  file: string;
  where: string;
  timeoutMs: number;
  timeoutFromState?: boolean;
  /** The run's own environment variables. */
  env: Record<string, string>;
  /** The workflow uses task folders: the worker makes the agent's before the step. */
  makeTaskFolder?: boolean;
  /** This step's own (its trace context: TRACEPARENT under the coordinator's span), over the run's. */
  stepEnv?: Record<string, string>;
  /** Scripts: the manifest hash of the folder the script runs from, and the script's path in it. */
  folder?: string;
  script?: string;
  /** Markdown turns. */
  prompt?: string;
  session?: SessionPlan;
  costBase?: number;
  model?: string;
  /** The models the turn goes on with when its own is overloaded or unavailable. */
  fallbackModels?: string[];
  effort?: string;
  /** The state's grant, resolved on the run's machine (its add_dirs rebased by the worker). */
  grant?: ResolvedGrant;
  /** Markdown turns: how the agent CLI runs. */
  turns?: TurnJobSettings;
  /** The agent CLI of the state's workflow; absent: Claude Code. */
  backend?: BackendSpec;
  /**
   * Markdown turns: the coordinator watches what the turn spends as it
   * streams (`--budget-hard`, a state's `budget:`), so the worker sends it
   * with the job's progress (SignedProgressPayload.spentUsd).
   */
  watchSpend?: boolean;
  transcripts?: TranscriptRef[];
  /** Where an agent's worktree branch is pushed (`--push-remote`). */
  pushRemote: string;
  /** The worker that holds the agent's session or worktree: others leave the job to it while it lives and has room. */
  prefer?: string;
  /** When the job was queued (epoch ms): a preference lapses after a while. */
  queuedAt: number;
}

/** A job as the executors make it: the queue adds its nonce and expiry each time it queues it. */
export type JobRequest = Omit<StepJob, 'nonce' | 'expires'>;

/** What a worker returns for a job. */
export interface StepJobResult {
  worker: string;
  execution?: Execution;
  error?: SerializedError;
  /** The transcript of the session the turn ran in, as it stands after the turn. */
  transcript?: { id: string; text: string; name?: string };
  /** The coordinator stopped the job (Ctrl-C) while it ran: a resume runs it again rather than take this. */
  cancelled?: boolean;
  /** `worktree.finish`: the worktree as the agent left it. */
  worktree?: WorktreeRef;
}

/** What a worker signs and returns: its result, bound to the job (id and nonce) it answers. */
export interface SignedResultPayload {
  for: 'result';
  id: string;
  nonce: string;
  result: StepJobResult;
}

/** What a worker signs with each batch of events it forwards while a job runs. */
export interface SignedProgressPayload {
  for: 'progress';
  id: string;
  nonce: string;
  events: unknown[];
  /** A watched turn's streamed cost so far (StepJob.watchSpend), when it grew since the last batch. */
  spentUsd?: number;
}

/** `path` moved from under `from` to under `to`; a path outside `from` is left as it is. */
export function rebase(path: string, from: string, to: string): string {
  if (from === to) return path;
  if (path === from) return to;
  return path.startsWith(`${from}/`) ? to + path.slice(from.length) : path;
}

/** Every mention of `from` as a path (alone, or followed by `/`) in a text, written under `to` instead. */
export function rebaseText(text: string, from: string, to: string): string {
  if (from === to || from === '/' || from === '') return text;
  const escaped = from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // Not a longer name that begins the same (`/srv/repo2`, `/srv/repo-old`, `/srv/repo.bak`), nor one that ends the same (`/home/srv/repo`).
  return text.replace(new RegExp(`(?<![\\w.-])${escaped}(?![\\w-]|\\.\\w)`, 'g'), to);
}

/** An agent's paths (directory, task folder, worktree) moved from one root to another. */
export function rebaseAgent(agent: AgentFields, from: string, to: string): AgentFields {
  const out: AgentFields = { ...agent, cwd: rebase(agent.cwd, from, to) };
  if (agent.task_folder !== undefined) out.task_folder = rebase(agent.task_folder, from, to);
  if (agent.worktree) out.worktree = rebaseWorktree(agent.worktree, from, to);
  return out;
}

/** A worktree's repository and folder moved from one root to another. */
export function rebaseWorktree(w: WorktreeRef, from: string, to: string): WorktreeRef {
  const out: WorktreeRef = { ...w, repo: rebase(w.repo, from, to) };
  if (w.path !== undefined) out.path = rebase(w.path, from, to);
  return out;
}
