import { RUN_SETTINGS, type RunSettingsTable } from './run-settings-table.js';
import {
  attributeName,
  isNegated,
  type AnySetting,
  type DefaultContext,
  type SettingScope,
} from './setting.js';

/** A config key of the table: `budget`, or `queue.url` for `url` under `[raymond.queue]`. */
export type SettingKey = keyof RunSettingsTable;
type CheckedValue<S> = S extends { check: (v: unknown) => infer T } ? T : never;
type TopKey = Exclude<SettingKey, `queue.${string}`>;

/** Run options a config file may set under `[raymond]` (the same names as the flags, in snake case). */
export type ConfigValues = { [K in TopKey]?: CheckedValue<RunSettingsTable[K]> };
/** `[raymond.queue]`: where a run's steps go (`--queue`), and how. */
export type QueueConfigValues = {
  [K in SettingKey as K extends `queue.${infer Q}` ? Q : never]?: CheckedValue<RunSettingsTable[K]>;
};

type RunName<S> = S extends { run?: infer R } ? (R extends string ? R : never) : never;
type RunValue<S> = S extends { toRun?: (v: never) => infer V }
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

/** The table's entries with their keys. */
export function settingEntries(): Array<[SettingKey, AnySetting]> {
  return Object.entries(RUN_SETTINGS) as Array<[SettingKey, AnySetting]>;
}

/** The setting a config key names, if the table has it (own keys only: `toString` is no setting). */
export function settingOf(key: string): AnySetting | undefined {
  return Object.hasOwn(RUN_SETTINGS, key)
    ? (RUN_SETTINGS[key as SettingKey] as AnySetting)
    : undefined;
}

/** The value of a config key, in the config's shape: a flag's, else the config file's. */
export type SettingSources = Partial<Record<SettingKey, unknown>>;

/**
 * The config-shaped values commander's options hold for the table's flags:
 * `--no-debug` (commander's `debug: false`) is `no_debug: true`, a boolean
 * flag given is `true`, and a flag not given is absent.
 */
export function givenFlags(opts: Record<string, unknown>): SettingSources {
  const out: SettingSources = {};
  for (const [key, s] of settingEntries()) {
    if (!s.flag) continue;
    const v = opts[attributeName(s.flag)];
    if (isNegated(s.flag)) {
      if (v === false) out[key] = true;
    } else if (v !== undefined) out[key] = v;
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
  for (const [key, s] of settingEntries()) {
    if (!s.run || !scopes.includes(s.scope)) continue;
    const given = flags[key] ?? config[key];
    const value = given !== undefined ? (s.toRun ? s.toRun(given) : given) : s.initial?.(context);
    if (value !== undefined) out[s.run] = value;
  }
  return out;
}

/** The run settings a resume's flags give again: only flags, never the config (the run keeps its own). */
export function flagOverrides(flags: SettingSources): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, s] of settingEntries()) {
    if (!s.run || s.scope !== 'run' || flags[key] === undefined) continue;
    out[s.run] = s.toRun ? s.toRun(flags[key]) : flags[key];
  }
  return out;
}

/** The stored settings of a run, by their state-file names. */
export function storedOptions(settings: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [, s] of settingEntries()) {
    if (!s.run || !s.stored) continue;
    const v = settings[s.run];
    if (v !== undefined && v !== '') out[s.stored] = v;
    else if (s.nullable) out[s.stored] = null;
  }
  return out;
}

/** The run settings a state file stored: what it lacks is what a file from before the setting meant. */
export function fromStoredOptions(options: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [, s] of settingEntries()) {
    if (!s.run || !s.stored) continue;
    const v = options[s.stored] ?? s.absentFromState;
    if (v !== undefined && v !== null) out[s.run] = v;
  }
  return out;
}
