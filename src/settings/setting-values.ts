import { allBackends, backendSettings } from '../agents/registry/registry.js';
import { RUN_SETTINGS, type RunSettingsTable } from './run-settings-table.js';
import {
  attributeName,
  HELP_GROUPS,
  isNegated,
  type AnySetting,
  type DefaultContext,
  type SettingScope,
} from '../setting.js';

/** A config key of the table: `budget`, or `queue.url` for `url` under `[raymond.queue]`. */
export type SettingKey = keyof RunSettingsTable;
type CheckedValue<S> = S extends { check: (value: unknown) => infer T } ? T : never;
type TopKey = Exclude<SettingKey, `queue.${string}`>;

/** Run options a config file may set under `[raymond]` (the same names as the flags, in snake case). */
export type ConfigValues = { [K in TopKey]?: CheckedValue<RunSettingsTable[K]> };
/** `[raymond.queue]`: where a run's steps go (`--queue`), and how. */
export type QueueConfigValues = {
  [K in SettingKey as K extends `queue.${infer Q}` ? Q : never]?: CheckedValue<RunSettingsTable[K]>;
};

type RunName<S> = S extends { run?: infer R } ? (R extends string ? R : never) : never;
type RunValue<S> = S extends { toRun?: (value: never) => infer V }
  ? unknown extends V
    ? CheckedValue<S>
    : V
  : CheckedValue<S>;
type HasInitial<S> = S extends { initial?: infer I }
  ? [I] extends [undefined]
    ? false
    : true
  : false;
/** The settings the table gives a run: those with a default always set, the others optional. */
export type TableRunSettings = {
  [
    K in SettingKey as HasInitial<RunSettingsTable[K]> extends true
      ? RunName<RunSettingsTable[K]>
      : never
  ]: RunValue<RunSettingsTable[K]>;
} & {
  [
    K in SettingKey as HasInitial<RunSettingsTable[K]> extends true
      ? never
      : RunName<RunSettingsTable[K]>
  ]?: RunValue<RunSettingsTable[K]> | undefined;
};

/**
 * The table's entries with their keys, each backend's own settings after
 * Agent turns (their keys are not SettingKeys: only their backend reads
 * their values, from BackendRuntime.settings).
 */
export function settingEntries(): Array<[SettingKey, AnySetting]> {
  const table = Object.entries(RUN_SETTINGS) as Array<[SettingKey, AnySetting]>;
  const after = table.findLastIndex(([, setting]) => setting.group === 'Agent turns') + 1;
  const own = backendSettings() as Array<[SettingKey, AnySetting]>;
  return [...table.slice(0, after), ...own, ...table.slice(after)];
}

/** The setting a config key names, if the table or a backend has it (own keys only: `toString` is no setting). */
export function settingOf(key: string): AnySetting | undefined {
  if (Object.hasOwn(RUN_SETTINGS, key)) return RUN_SETTINGS[key as SettingKey];
  return backendSettings().find(([k]) => k === key)?.[1];
}

/** The groups of `--help` and the reference in their order: each backend's title after Agent turns. */
export function helpGroups(): readonly string[] {
  const at = HELP_GROUPS.indexOf('Agent turns') + 1;
  const titles = allBackends()
    .filter((b) => Object.keys(b.settings ?? {}).length > 0)
    .map((b) => b.title);
  return [...HELP_GROUPS.slice(0, at), ...titles, ...HELP_GROUPS.slice(at)];
}

/** The values of the backends' own settings in `settings` (by `run` name): BackendRuntime.settings. */
export function backendSettingValues(
  settings: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [, setting] of backendSettings())
    if (setting.run && settings[setting.run] !== undefined)
      out[setting.run] = settings[setting.run];
  return out;
}

/**
 * The backends' settings of this machine (`perMachine`: Claude Code's
 * `--claude-bin`), by config key: the flags of the commands that run turns
 * outside a run (merge, serve, worker, test).
 */
export function machineSettings(): Array<[SettingKey, AnySetting]> {
  return settingEntries().filter(
    ([, setting]) => setting.perMachine === true && setting.flag !== undefined,
  );
}

/** The machine settings' flags as given, by commander's attribute names (`claudeBin`): for a CliFlags. */
export function machineFlags(options: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [, setting] of machineSettings()) {
    const name = attributeName(setting.flag!);
    if (options[name] !== undefined) out[name] = options[name];
  }
  return out;
}

/** The values commander holds for the machine settings' flags, by their run names (BackendRuntime.settings). */
export function machineSettingValues(
  options: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [, setting] of machineSettings()) {
    const value = options[attributeName(setting.flag!)];
    if (value !== undefined && setting.run)
      out[setting.run] = setting.toRun ? setting.toRun(value) : value;
  }
  return out;
}

/** The defaults of the settings a process takes afresh (scope `process`): a resume's before its flags. */
export function processDefaults(context: DefaultContext): Record<string, unknown> {
  return resolveSettings({}, {}, context, ['process']);
}

/** The value of a config key, in the config's shape: a flag's, else the config file's. */
export type SettingSources = Partial<Record<SettingKey, unknown>>;

/**
 * The config-shaped values commander's options hold for the table's flags:
 * `--no-debug` (commander's `debug: false`) is `no_debug: true`, a boolean
 * flag given is `true`, and a flag not given is absent.
 */
export function givenFlags(options: Record<string, unknown>): SettingSources {
  const out: SettingSources = {};
  for (const [key, setting] of settingEntries()) {
    if (!setting.flag) continue;
    const value = options[attributeName(setting.flag)];
    if (isNegated(setting.flag)) {
      if (value === false) out[key] = true;
    } else if (value !== undefined) out[key] = value;
  }
  return out;
}

/**
 * The run's values of the settings of `scopes` (by their `run` name): the
 * flag's, else the config's, else the default; unset when none gives one.
 */
export function resolveSettings(
  flags: SettingSources,
  config: SettingSources,
  context: DefaultContext,
  scopes: readonly SettingScope[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, setting] of settingEntries()) {
    if (!setting.run || !scopes.includes(setting.scope)) continue;
    const given = flags[key] ?? config[key];
    const value =
      given !== undefined
        ? setting.toRun
          ? setting.toRun(given)
          : given
        : setting.initial?.(context);
    if (value !== undefined) out[setting.run] = value;
  }
  return out;
}

/** The run settings a resume's flags give again: only flags, never the config (the run keeps its own). */
export function flagOverrides(flags: SettingSources): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, setting] of settingEntries()) {
    if (!setting.run || setting.scope !== 'run' || flags[key] === undefined) continue;
    out[setting.run] = setting.toRun ? setting.toRun(flags[key]) : flags[key];
  }
  return out;
}

/** The stored settings of a run, by their state-file names. */
export function storedOptions(settings: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [, setting] of settingEntries()) {
    if (!setting.run || !setting.stored) continue;
    const value = settings[setting.run];
    if (value !== undefined && value !== '') out[setting.stored] = value;
    else if (setting.nullable) out[setting.stored] = null;
  }
  return out;
}

/** The run settings a state file stored: what it lacks is what a file from before the setting meant. */
export function fromStoredOptions(options: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [, setting] of settingEntries()) {
    if (!setting.run || !setting.stored) continue;
    const value = options[setting.stored] ?? setting.absentFromState;
    if (value !== undefined && value !== null) out[setting.run] = value;
  }
  return out;
}
