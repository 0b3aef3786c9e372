import { freemem } from 'node:os';
import { DEFAULT_WORKTREE_MODE, type OnAskMode, type RunOptions, type WorktreeMode } from '../../machines/types.js';
import { DEFAULT_TASK_FOLDER_PATTERN } from '../task-folder-pattern.js';
import type { Grant } from '../language/grant.js';

/** How a run behaves; stored in the state file (but `debug`, `warm` and `claudeBin`). */
export interface RunSettings {
  maxParallel: number;
  timeoutSeconds: number;
  /** USD; 0 means unlimited. */
  budgetUsd: number;
  model?: string | undefined;
  effort?: string | undefined;
  skipPermissions: boolean;
  /** `--permission-mode`: Claude Code's mode when permissions are not skipped (default acceptEdits); not stored. */
  permissionMode?: string | undefined;
  /** `--disallowed-tools`: tools no turn may call; not stored. */
  disallowedTools: readonly string[];
  /** The config's grant keys (`tools`, `allowed_tools`, `on_denial`): every markdown state's defaults; not stored. */
  grant?: Grant | undefined;
  /** `--claude-bin`: the Claude Code executable; default `claude` on PATH. */
  claudeBin?: string | undefined;
  /** Write `.raymond/debug/<id>/`. */
  debug: boolean;
  /** Keep an agent's Claude Code process alive between its turns in one session (`--no-warm` says no). */
  warm: boolean;
  /** `--worktrees`: how agents with `worktree=` get their folders. */
  worktreeMode: WorktreeMode;
  /** `task_folder_pattern`: where agents' task folders go. Fixed for a run's life: a resume keeps the run's own. */
  taskFolderPattern: string;
  /** `--name`: the run's label. */
  name?: string | undefined;
  /** `--on-ask`: what an `<ask>` does. */
  onAsk: OnAskMode;
  /** A server run's own environment variables, for its scripts and Claude Code turns (Raymond's own `RAYMOND_*` win). */
  environment?: Readonly<Record<string, string>> | undefined;
  /** `--queue`: steps run on worker machines through BullMQ on Redis; absent runs them here. */
  queue?: QueueSettings | undefined;
}

/** Where a queued run's steps go, and how. */
export interface QueueSettings {
  /** `redis://...` or `rediss://...`, password included (the state file keeps it without). */
  url: string;
  /** `--queue-secret-file`; else RAYMOND_QUEUE_SECRET. */
  secretFile?: string | undefined;
  /** `--push-remote`: where workers push agents' worktree branches (default `origin`). */
  pushRemote: string;
}

/** Settings a resume's command line gives again: its queue may be only companions (`--queue-secret-file`, `--push-remote`) for the run's own URL. */
export type ResumeOverrides = Partial<Omit<RunSettings, 'queue'>> & { queue?: Partial<QueueSettings> | undefined };

/**
 * The queue a resumed run uses: a URL given again replaces the run's own;
 * a secret file or push remote given alone applies to the run's own URL
 * (from its state file), which a run on one machine does not have.
 */
export function resumeQueue(own: QueueSettings | undefined, given: Partial<QueueSettings> | undefined): QueueSettings | undefined {
  if (!given) return own;
  if (given.url !== undefined) return { url: given.url, secretFile: given.secretFile, pushRemote: given.pushRemote ?? own?.pushRemote ?? DEFAULT_PUSH_REMOTE };
  if (!own) return undefined;
  return { ...own, ...(given.secretFile !== undefined ? { secretFile: given.secretFile } : {}), ...(given.pushRemote !== undefined ? { pushRemote: given.pushRemote } : {}) };
}

/** The default `--push-remote`. */
export const DEFAULT_PUSH_REMOTE = 'origin';

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

/** The settings as the state file stores them. */
export function toOptions(s: RunSettings): RunOptions {
  return { timeout_seconds: s.timeoutSeconds, max_parallel: s.maxParallel, budget_usd: s.budgetUsd, model: s.model ?? null, effort: s.effort ?? null, dangerously_skip_permissions: s.skipPermissions, worktrees: s.worktreeMode, task_folder_pattern: s.taskFolderPattern, ...(s.name ? { name: s.name } : {}), on_ask: s.onAsk, ...(s.environment && Object.keys(s.environment).length > 0 ? { environment: { ...s.environment } } : {}), ...(s.queue ? { queue: withoutPassword(s.queue.url), push_remote: s.queue.pushRemote } : {}) };
}

/** The settings a state file stored, for a resume. */
export function fromOptions(o: RunOptions): Omit<RunSettings, 'debug' | 'warm' | 'claudeBin' | 'permissionMode' | 'disallowedTools' | 'grant'> {
  return { timeoutSeconds: o.timeout_seconds, maxParallel: o.max_parallel, budgetUsd: o.budget_usd, model: o.model ?? undefined, effort: o.effort ?? undefined, skipPermissions: o.dangerously_skip_permissions, worktreeMode: o.worktrees ?? DEFAULT_WORKTREE_MODE, taskFolderPattern: o.task_folder_pattern ?? DEFAULT_TASK_FOLDER_PATTERN, name: o.name, onAsk: o.on_ask ?? 'reject', environment: o.environment, queue: o.queue ? { url: o.queue, pushRemote: o.push_remote ?? DEFAULT_PUSH_REMOTE } : undefined };
}

/** Each Claude Code process takes ~230 MB: allow a markdown step per ~300 MB of free memory. */
const MARKDOWN_STEP_BYTES = 300 * 2 ** 20;

/** Most markdown steps at once on this machine right now. */
export function markdownSlots(): number {
  return Math.max(1, Math.floor(freemem() / MARKDOWN_STEP_BYTES));
}
