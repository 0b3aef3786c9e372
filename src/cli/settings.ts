import type { ConfigValues, QueueConfigValues } from '../config/config-file.js';
import { DEFAULT_PUSH_REMOTE, type QueueSettings, type ResumeOverrides, type RunSettings } from '../runtime/run-settings.js';
import { DEFAULT_DISALLOWED_TOOLS } from '../claude/claude-argv.js';
import { isEmptyGrant } from '../language/grant.js';
import { MAX_TIMER_MS } from '../timer-delay.js';
import { DEFAULT_WORKTREE_MODE, type OnAskMode, type WorktreeMode } from '../../machines/types.js';
import { DEFAULT_TASK_FOLDER_PATTERN } from '../task-folder-pattern.js';
import { configCommands, configUrls } from '../notify/hook-spec.js';
import { DEFAULT_BUDGET_USD, DEFAULT_MAX_PARALLEL, DEFAULT_TIMEOUT_SECONDS, QUEUE_MAX_PARALLEL } from './options.js';

/** Flags as commander parses them; run settings are undefined unless given. */
export interface CliFlags {
  input?: string;
  workflowId?: string;
  /** `--name`: a label for the run. */
  name?: string;
  /** `--on-ask`: what an `<ask>` does. */
  onAsk?: OnAskMode;
  /** `--answer ASK_ID=TEXT`, repeatable: answers given with `--resume`. */
  answer?: Array<{ askId: string; text: string }>;
  /** Absent: the project's (program.ts fills it in before anything reads it). */
  stateDir?: string;
  /** Whether --state-dir was given (a resume hint then repeats it). */
  stateDirGiven?: boolean;
  maxParallel?: number;
  timeout?: number;
  budget?: number;
  model?: string;
  effort?: string;
  dangerouslySkipPermissions?: boolean;
  claudeBin?: string;
  worktrees?: WorktreeMode;
  permissionMode?: string;
  continueSession?: boolean;
  /** `--disallowed-tools A,B`: parsed by program.ts; an empty list allows every tool. */
  disallowedTools?: string[];
  /** From `--no-debug` / `--no-wait`: false only when given. */
  debug?: boolean;
  wait?: boolean;
  /** From `--no-warm`: false only when given. */
  warm?: boolean;
  /** `--queue URL`, `--queue-secret-file FILE`, `--push-remote REMOTE`. */
  queue?: string;
  queueSecretFile?: string;
  pushRemote?: string;
  /** `--notify CMD` (repeatable), each split into argv by program.ts. */
  notify?: string[][];
  /** `--notify-url URL` (repeatable). */
  notifyUrl?: string[];
  resume?: string;
  allowChanges?: boolean;
  list?: boolean;
  status?: string;
  recover?: boolean;
  initConfig?: boolean;
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  /** `--inspect` alone is true; `--inspect=PORT` the port. */
  inspect?: boolean | number;
  inspectFull?: boolean;
  inspectAgents?: string;
  inspectWait?: boolean;
  trace?: string;
}

/**
 * Settings of this process rather than of the run (the state file keeps
 * none of them): a new run and a resume take them alike, from the flags,
 * else the config file, else the defaults.
 */
function processSettings(flags: CliFlags, config: ConfigValues & { queue?: QueueConfigValues }): Pick<RunSettings, 'claudeBin' | 'debug' | 'warm' | 'permissionMode' | 'disallowedTools' | 'queue' | 'grant'> {
  const grant = { tools: config.tools, allowedTools: config.allowed_tools, onDenial: config.on_denial };
  return {
    grant: isEmptyGrant(grant) ? undefined : grant,
    queue: queueSettings(flags, config.queue ?? {}),
    claudeBin: flags.claudeBin ?? config.claude_bin,
    debug: flags.debug === false ? false : !(config.no_debug ?? false),
    warm: flags.warm === false ? false : !(config.no_warm ?? false),
    permissionMode: flags.permissionMode ?? config.permission_mode,
    disallowedTools: flags.disallowedTools ?? config.disallowed_tools ?? DEFAULT_DISALLOWED_TOOLS,
  };
}

/** `--queue` and its companions, else `[raymond.queue]`; absent when neither names a URL (a resume then takes the run's own). */
function queueSettings(flags: CliFlags, config: QueueConfigValues): QueueSettings | undefined {
  const url = flags.queue ?? config.url;
  if (url === undefined) return undefined;
  return { url, secretFile: flags.queueSecretFile ?? config.secret_file, pushRemote: flags.pushRemote ?? config.push_remote ?? DEFAULT_PUSH_REMOTE };
}

/** A resume's queue: a URL with its companions, or only the companions given, for the run's own URL. */
function queueOverride(flags: CliFlags, config: QueueConfigValues): Partial<QueueSettings> | undefined {
  const url = flags.queue ?? config.url;
  if (url !== undefined) return queueSettings(flags, config);
  const secretFile = flags.queueSecretFile ?? config.secret_file;
  const pushRemote = flags.pushRemote ?? config.push_remote;
  return secretFile === undefined && pushRemote === undefined ? undefined : { secretFile, pushRemote };
}

/** Settings of a new run: flags beat the config file, which beats the defaults. */
export function newRunSettings(flags: CliFlags, config: ConfigValues & { queue?: QueueConfigValues }): RunSettings {
  const process = processSettings(flags, config);
  return {
    // A queued run's steps run on the workers, whose --concurrency is the limit: this machine's cores are not.
    maxParallel: flags.maxParallel ?? config.max_parallel ?? (process.queue ? QUEUE_MAX_PARALLEL : DEFAULT_MAX_PARALLEL),
    timeoutSeconds: flags.timeout ?? configTimeout(config.timeout) ?? DEFAULT_TIMEOUT_SECONDS,
    budgetUsd: flags.budget ?? config.budget ?? DEFAULT_BUDGET_USD,
    model: flags.model ?? config.model,
    effort: flags.effort ?? config.effort,
    skipPermissions: flags.dangerouslySkipPermissions ?? config.dangerously_skip_permissions ?? false,
    ...process,
    worktreeMode: flags.worktrees ?? config.worktrees ?? DEFAULT_WORKTREE_MODE,
    taskFolderPattern: config.task_folder_pattern ?? DEFAULT_TASK_FOLDER_PATTERN,
    name: flags.name ?? config.name,
    onAsk: flags.onAsk ?? config.on_ask ?? defaultOnAsk(),
  };
}

/**
 * Settings given again when resuming: the run's own options come back from
 * its state file unless the command line says otherwise.
 */
export function resumeOverrides(flags: CliFlags, config: ConfigValues & { queue?: QueueConfigValues }): ResumeOverrides {
  const { queue: _url, ...process } = processSettings(flags, config);
  return {
    maxParallel: flags.maxParallel,
    timeoutSeconds: flags.timeout,
    budgetUsd: flags.budget,
    model: flags.model,
    effort: flags.effort,
    skipPermissions: flags.dangerouslySkipPermissions,
    ...process,
    queue: queueOverride(flags, config.queue ?? {}),
    worktreeMode: flags.worktrees,
    name: flags.name,
    onAsk: flags.onAsk,
  };
}

/**
 * `--on-ask` when neither the flag nor the config says: at a terminal
 * (stdin and stderr both), ask there; elsewhere refuse, as `ray` does, so a
 * run nobody watches never waits forever.
 */
export function defaultOnAsk(): OnAskMode {
  return process.stdin.isTTY && process.stderr.isTTY ? 'prompt' : 'reject';
}

/** A config file's timeout in whole seconds: `ray` writes fractions, and 0 for never (the longest timer Node keeps). */
function configTimeout(seconds: number | undefined): number | undefined {
  if (seconds === undefined) return undefined;
  return seconds === 0 ? Math.floor(MAX_TIMER_MS / 1000) : Math.ceil(seconds);
}

/** Whether to wait out a usage limit (`--no-wait` or `no_wait = true` say no). */
export function waitForLimits(flags: CliFlags, config: ConfigValues): boolean {
  return flags.wait === false ? false : !(config.no_wait ?? false);
}

/**
 * The hooks told of the run's events: each kind from the flags when any is
 * given (they replace the config file's list of that kind), else from the
 * config file. Like the other settings of this process, a resume takes its
 * own, not the first run's.
 */
export function notifyHooks(flags: CliFlags, config: ConfigValues): { commands: string[][]; urls: string[] } {
  return {
    commands: flags.notify ?? (config.notify === undefined ? [] : configCommands(config.notify)),
    urls: flags.notifyUrl ?? (config.notify_url === undefined ? [] : configUrls(config.notify_url)),
  };
}
