import type { ConfigValues, QueueConfigValues } from '../config/config-file.js';
import type { PriceOverride } from '../agents/agent-backend.js';
import type { QueueSettings, ResumeOverrides, RunSettings } from '../settings/run-settings.js';
import { isEmptyGrant } from '../language/grant.js';
import { configCommands, configUrls } from '../notify/hook-spec.js';
import { DEFAULT_PUSH_REMOTE } from '../settings/run-setting-defaults.js';
import type { DefaultContext } from '../setting.js';
import {
  flagOverrides,
  backendSettingValues,
  givenFlags,
  resolveSettings,
  type SettingKey,
  type SettingSources,
} from '../settings/setting-values.js';

/**
 * Flags as commander parses them. The settings table's flags (src/settings/)
 * are here under their attribute names (`maxParallel`, `debug` for
 * `--no-debug`...), config-shaped and checked; undefined unless given.
 */
export interface CliFlags {
  input?: string;
  workflowId?: string;
  /** `--answer ASK_ID=TEXT`, repeatable: answers given with `--resume`. */
  answer?: Array<{ askId: string; text: string }>;
  stateDir?: string;
  continueSession?: boolean;
  resume?: string;
  allowChanges?: boolean;
  list?: boolean;
  status?: string;
  recover?: boolean;
  initConfig?: boolean;
  json?: boolean;
  quiet?: boolean;
  /** `--inspect` alone is true; `--inspect=PORT` the port. */
  inspect?: boolean | number;
  inspectFull?: boolean;
  inspectAgents?: string;
  inspectWait?: boolean;
  trace?: string;
  /** The settings table's flags, by commander's attribute name. */
  [tableFlag: string]: unknown;
}

/** What a config file gave for the run: `[raymond]` and `[raymond.queue]`. */
export type RunConfig = ConfigValues & {
  queue?: QueueConfigValues;
  prices?: Readonly<Record<string, PriceOverride>>;
};

/** The config's values by the table's keys (`queue.url` for `[raymond.queue]`'s `url`). */
function configSources(config: RunConfig): SettingSources {
  const { queue, prices: _prices, ...top } = config;
  const out: SettingSources = { ...top };
  for (const [key, value] of Object.entries(queue ?? {})) out[`queue.${key}` as SettingKey] = value;
  return out;
}

/** The context the defaults depend on: a queue, a person at this terminal. */
function defaults(queued: boolean): DefaultContext {
  return { queued, interactive: process.stdin.isTTY === true && process.stderr.isTTY === true };
}

/**
 * Settings of this process rather than of the run (the state file keeps
 * none of them): a new run and a resume take them alike, from the flags,
 * else the config file, else the defaults.
 */
function processSettings(
  flags: SettingSources,
  config: RunConfig,
): Pick<
  RunSettings,
  'debug' | 'history' | 'otelEndpoint' | 'backendSettings' | 'grant' | 'prices'
> {
  const grant = {
    tools: config.tools,
    allowedTools: config.allowed_tools,
    onDenial: config.on_denial,
  };
  const own = resolveSettings(flags, configSources(config), defaults(false), ['process']);
  const backendSettings = backendSettingValues(own);
  const common = Object.fromEntries(
    Object.entries(own).filter(([name]) => !Object.hasOwn(backendSettings, name)),
  ) as Pick<RunSettings, 'debug' | 'history' | 'otelEndpoint'>;
  return {
    ...common,
    backendSettings,
    grant: isEmptyGrant(grant) ? undefined : grant,
    ...(config.prices && Object.keys(config.prices).length > 0 ? { prices: config.prices } : {}),
  };
}

/** The queue's three settings, flag else config. */
function queueValues(
  flags: SettingSources,
  config: RunConfig,
): { url?: string; secretFile?: string; pushRemote?: string } {
  const pick = (key: 'url' | 'secret_file' | 'push_remote') =>
    (flags[`queue.${key}`] ?? config.queue?.[key]) as string | undefined;
  return { url: pick('url'), secretFile: pick('secret_file'), pushRemote: pick('push_remote') };
}

/** `--queue` and its companions, else `[raymond.queue]`; absent when neither names a URL (a resume then takes the run's own). */
function queueSettings(flags: SettingSources, config: RunConfig): QueueSettings | undefined {
  const { url, secretFile, pushRemote } = queueValues(flags, config);
  return url === undefined
    ? undefined
    : { url, secretFile, pushRemote: pushRemote ?? DEFAULT_PUSH_REMOTE };
}

/** A resume's queue: a URL with its companions, or only the companions given, for the run's own URL. */
function queueOverride(
  flags: SettingSources,
  config: RunConfig,
): Partial<QueueSettings> | undefined {
  const { url, secretFile, pushRemote } = queueValues(flags, config);
  if (url !== undefined) return queueSettings(flags, config);
  return secretFile === undefined && pushRemote === undefined
    ? undefined
    : { secretFile, pushRemote };
}

/** Settings of a new run: flags beat the config file, which beats the defaults. */
export function newRunSettings(cli: CliFlags, config: RunConfig): RunSettings {
  const flags = givenFlags(cli);
  const queue = queueSettings(flags, config);
  // A queued run's steps run on the workers, whose --concurrency is the limit: this machine's cores are not.
  const run = resolveSettings(flags, configSources(config), defaults(queue !== undefined), ['run']);
  return { ...(run as RunSettings), ...processSettings(flags, config), queue };
}

/**
 * Settings given again when resuming: the run's own options come back from
 * its state file unless the command line says otherwise.
 */
export function resumeOverrides(cli: CliFlags, config: RunConfig): ResumeOverrides {
  const flags = givenFlags(cli);
  return {
    ...(flagOverrides(flags) as ResumeOverrides),
    ...processSettings(flags, config),
    queue: queueOverride(flags, config),
  };
}

/** Whether to wait out a usage limit (`--no-wait` or `no_wait = true` say no). */
export function waitForLimits(cli: CliFlags, config: ConfigValues): boolean {
  return !(givenFlags(cli).no_wait ?? config.no_wait ?? false);
}

/**
 * The hooks told of the run's events: each kind from the flags when any is
 * given (they replace the config file's list of that kind), else from the
 * config file. Like the other settings of this process, a resume takes its
 * own, not the first run's.
 */
export function notifyHooks(
  cli: CliFlags,
  config: ConfigValues,
): { commands: string[][]; urls: string[] } {
  const flags = givenFlags(cli);
  const commands = (flags.notify ?? config.notify) as ConfigValues['notify'];
  const urls = (flags.notify_url ?? config.notify_url) as ConfigValues['notify_url'];
  return {
    commands: commands === undefined ? [] : configCommands(commands),
    urls: urls === undefined ? [] : configUrls(urls),
  };
}
