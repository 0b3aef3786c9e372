import { freemem } from 'node:os';
import type { RunOptions } from '../../machines/types.js';
import type { PriceOverride } from '../agents/agent-backend.js';
import type { Grant } from '../language/grant.js';
import { DEFAULT_MAX_PARALLEL, DEFAULT_PUSH_REMOTE } from './run-setting-defaults.js';
import { fromStoredOptions, storedOptions, type TableRunSettings } from './setting-values.js';

/**
 * How a run behaves. The settings of the table (src/settings/) come from
 * it, flags and config alike; the state file stores those of scope `run`
 * (but `debug`, `history` and the backends' own settings, which each
 * process takes afresh).
 */
export type RunSettings = TableRunSettings & {
  /** The config's grant keys (`tools`, `allowed_tools`, `on_denial`): every markdown state's defaults; not stored. */
  grant?: Grant;
  /** A server run's own environment variables, for its scripts and Claude Code turns (Raymond's own `RAYMOND_*` win). */
  environment?: Readonly<Record<string, string>>;
  /** The config's `[raymond.prices]` (USD per million tokens by model); not stored: each process reads its own. */
  prices?: Readonly<Record<string, PriceOverride>>;
  /** `--queue`: steps run on worker machines through BullMQ on Redis; absent runs them here. */
  queue?: QueueSettings;
  /**
   * The values of the backends' own settings (AgentBackend.settings: Claude
   * Code's `--claude-bin`, `--no-warm`...) by their run names; not stored:
   * each process takes its own. Given to every backend as BackendRuntime.settings.
   * @default {} (each backend's defaults)
   */
  backendSettings?: Readonly<Record<string, unknown>>;
};

/** Where a queued run's steps go, and how. */
export interface QueueSettings {
  /** `redis://...` or `rediss://...`, password included (the state file keeps it without). */
  url: string;
  /** `--queue-secret-file`; else RAYMOND_QUEUE_SECRET. */
  secretFile?: string;
  /** `--push-remote`: where workers push agents' worktree branches (default `origin`). */
  pushRemote: string;
}

/** Settings a resume's command line gives again: its queue may be only companions (`--queue-secret-file`, `--push-remote`) for the run's own URL. */
export type ResumeOverrides = Partial<Omit<RunSettings, 'queue'>> & {
  queue?: Partial<QueueSettings>;
};

/**
 * The queue a resumed run uses: a URL given again replaces the run's own;
 * a secret file or push remote given alone applies to the run's own URL
 * (from its state file), which a run on one machine does not have.
 */
export function resumeQueue(
  own: QueueSettings | undefined,
  given: Partial<QueueSettings> | undefined,
): QueueSettings | undefined {
  if (!given) return own;
  if (given.url !== undefined)
    return {
      url: given.url,
      secretFile: given.secretFile,
      pushRemote: given.pushRemote ?? own?.pushRemote ?? DEFAULT_PUSH_REMOTE,
    };
  if (!own) return undefined;
  return {
    ...own,
    ...(given.secretFile !== undefined ? { secretFile: given.secretFile } : {}),
    ...(given.pushRemote !== undefined ? { pushRemote: given.pushRemote } : {}),
  };
}

/** A queue URL as the state file keeps it: without its password. */
function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    return u.toString();
  } catch {
    return url;
  }
}

/** The settings as the state file stores them: the table's stored ones, the server run's environment, and the queue. */
export function toOptions(settings: RunSettings): RunOptions {
  const env =
    settings.environment && Object.keys(settings.environment).length > 0
      ? { environment: { ...settings.environment } }
      : {};
  const queue = settings.queue
    ? { queue: withoutPassword(settings.queue.url), push_remote: settings.queue.pushRemote }
    : {};
  return { ...(storedOptions(settings) as unknown as RunOptions), ...env, ...queue };
}

/** The settings a state file stored, for a resume. */
export function fromOptions(
  options: RunOptions,
): Omit<RunSettings, 'debug' | 'history' | 'backendSettings' | 'grant' | 'prices'> {
  const own = fromStoredOptions(options as unknown as Record<string, unknown>) as unknown as Omit<
    RunSettings,
    'debug' | 'history'
  >;
  return {
    ...own,
    environment: options.environment,
    queue: options.queue
      ? { url: options.queue, pushRemote: options.push_remote ?? DEFAULT_PUSH_REMOTE }
      : undefined,
  };
}

/** Each Claude Code process takes ~230 MB: allow a markdown step per ~300 MB of free memory. */
const MARKDOWN_STEP_BYTES = 300 * 2 ** 20;

/** Most markdown steps at once on this machine right now (`free`: its free memory in bytes). */
export function markdownSlots(free = freemem()): number {
  return Math.max(1, Math.floor(free / MARKDOWN_STEP_BYTES));
}

/**
 * Most steps a queue worker takes at once when `--concurrency` is not given: what a local run
 * allows, a step per core (at least 2, the default `--max-parallel`), and no more than free
 * memory holds of Claude Code processes. Every step keeps a core busy while it runs (a Claude
 * Code turn, a script): memory alone allowed 76 at once on a 2-core machine.
 */
export function workerSlots(cores = DEFAULT_MAX_PARALLEL, free = freemem()): number {
  return Math.min(cores, markdownSlots(free));
}
