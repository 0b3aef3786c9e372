/**
 * What one run setting is, and the checks its values go through. A value
 * comes from a flag (a string, turned into the config file's shape first)
 * or from the config file (already typed by TOML); either way the same
 * `check` accepts it or fails with one line, so `--budget x` and
 * `budget = "x"` are refused with the same words.
 */

/** A value a setting refuses; the message is the tail of the line the user sees ("expected ..."). */
export class SettingProblem extends Error {}

/** Fails a check with the line the user sees. */
export function refuse(message: string): never {
  throw new SettingProblem(message);
}

/**
 * The sections of `raymond --help` a flag is listed under, in the order
 * shown; each backend's own settings follow Agent turns, under its title.
 */
export const HELP_GROUPS = [
  'Run',
  'Agents',
  'Agent turns',
  'Asking',
  'Queue (many machines)',
  'Notifications',
  'Inspection',
  'Runs and state',
  'Output',
] as const;
export type HelpGroup = (typeof HELP_GROUPS)[number];

/**
 * Where a setting's value ends up: `run` is stored in the state file and
 * taken back by a resume; `process` is this process's own (a resume takes it
 * afresh from its own flags and config); `command` is read by the CLI only.
 */
export type SettingScope = 'run' | 'process' | 'command';

/** What a setting's default may depend on. */
export interface DefaultContext {
  /** The run's steps go to a queue (`--queue`). */
  queued: boolean;
  /** A person is at this terminal (stdin and stderr). */
  interactive: boolean;
}

/**
 * One run setting, declared once; its config key is its key in the table
 * (`queue.url` is `url` under `[raymond.queue]`). `T` is its value as the config file holds
 * it, `V` as the run holds it (`RunSettings[run]`).
 */
export interface Setting<T = unknown, V = T> {
  /** Commander's flag text (`--budget <usd>`, `--no-debug`); absent: config only. */
  readonly flag?: string;
  /** A repeatable flag: each value is added to the ones before. */
  readonly repeatable?: boolean;
  /** The state file's name for it (`budget_usd`), when the run stores it (its name in `RunSettings`, `run`, is given to `setting`). */
  readonly stored?: string;
  /** Stored as `null` when unset, rather than left out. */
  readonly nullable?: boolean;
  /** What a state file written before the setting existed means. */
  readonly absentFromState?: V;
  /**
   * The run's value from the config-shaped one (default: the same). A
   * method, so that a setting of any type is an AnySetting (a backend's own
   * table is read as AnySettings).
   */
  toRun?(value: T): V;
  /** The run's value when neither a flag nor the config gives one; absent: unset. */
  readonly initial?: (context: DefaultContext) => V;
  readonly scope: SettingScope;
  /**
   * A value of this machine (a path), which a command that runs turns
   * outside a run (merge, serve, workers, test) takes as its own flag, and a
   * queue worker's wins over the run's.
   * @default false
   */
  readonly perMachine?: boolean;
  /** One of HELP_GROUPS, or, for a backend's own setting, the backend's title. */
  readonly group: HelpGroup | (string & {});
  /** The flag's line in `--help`. */
  readonly help: string;
  /** The config template's comment and the configuration reference's meaning. */
  readonly doc: string;
  /** A TOML value shown in the template, commented out. */
  readonly example: string;
  /** The default as the reference shows it (from the named constant). */
  readonly defaultText: string;
  /** Commander's choices, when the value is one of a list. */
  readonly choices?: readonly string[];
  /** Values shell completion offers when any other may be typed too (the backends' model names). */
  readonly suggestions?: () => readonly string[];
  /** Accepts a config-shaped value or fails with one line (SettingProblem). */
  readonly check: (value: unknown) => T;
  /** The flag's value is checked when the run starts, not by commander (whose message would repeat a password). */
  readonly flagCheckedLater?: boolean;
  /** A flag's string in the config file's shape, before `check` (default: as is). */
  readonly fromFlag?: (raw: string) => unknown;
  /** What a repeated flag keeps: the values before and this one, checked (default: a list of the checked values). */
  collect?(value: T, previous: T | undefined): T;
}

/** A setting as the generic code reads it: with its name in `RunSettings`, if it has one (`budgetUsd`; absent: the CLI reads it itself). */
export type AnySetting = Setting<unknown> & { readonly run?: string };

/** Declares a setting, keeping its types (and its `run` name) for the types derived from the table. */
export function setting<
  T,
  V = T,
  const R extends string = never,
  I extends ((context: DefaultContext) => V) | undefined = undefined,
>(
  spec: Setting<T, V> & { readonly run?: R; initial?: I },
): Setting<T, V> & { readonly run?: R; initial?: I } {
  return spec;
}

/** A flag's number as the config file would hold it: `2.5` stays text when it is not a number, so the check refuses it. */
export function numberFromFlag(raw: string): unknown {
  return raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
}

/** A finite number of at least `min`. */
export function atLeast(min: number, expected: string) {
  return (v: unknown): number =>
    typeof v === 'number' && Number.isFinite(v) && v >= min ? v : refuse(`expected ${expected}`);
}

/** A finite number greater than `min`. */
export function above(min: number, expected: string) {
  return (v: unknown): number =>
    typeof v === 'number' && Number.isFinite(v) && v > min ? v : refuse(`expected ${expected}`);
}

/** A whole number of at least `min`. */
export function wholeAtLeast(min: number, expected: string) {
  return (v: unknown): number =>
    Number.isInteger(v) && (v as number) >= min ? (v as number) : refuse(`expected ${expected}`);
}

/** One of `choices`. */
export function oneOf<T extends string>(
  choices: readonly T[],
  expected = `one of ${choices.map((c) => `"${c}"`).join(', ')}`,
) {
  return (v: unknown): T => (choices.includes(v as T) ? (v as T) : refuse(`expected ${expected}`));
}

/** `true` or `false`. */
export function bool(v: unknown): boolean {
  return typeof v === 'boolean' ? v : refuse('expected true or false');
}

/** A string, non-empty unless `empty`; `problem` says what else is wrong with it. */
export function text(expected: string, problem?: (v: string) => string | undefined) {
  return (v: unknown): string => {
    if (typeof v !== 'string' || v === '') refuse(`expected ${expected}`);
    const wrong = problem?.(v);
    return wrong === undefined ? v : refuse(wrong);
  };
}

/** A list of non-blank names. */
export function names(expected: string) {
  return (v: unknown): string[] =>
    Array.isArray(v) && v.every((t) => typeof t === 'string' && t.trim() !== '')
      ? (v as string[])
      : refuse(`expected ${expected}`);
}

/** A flag's list: names separated by commas (a name may hold spaces: `Bash(git *)`); empty: none. */
export function listFromFlag(raw: string): string[] {
  return raw
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

/** The attribute commander stores a flag under: `--max-parallel <n>` is `maxParallel`, `--no-debug` is `debug`. */
export function attributeName(flag: string): string {
  const long = /--(?:no-)?([a-z0-9-]+)/.exec(flag)![1]!;
  return long.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** Whether a flag is the negation of its config key (`--no-debug` for `no_debug = true`). */
export function isNegated(flag: string): boolean {
  return flag.startsWith('--no-');
}
