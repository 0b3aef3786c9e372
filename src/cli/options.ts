import { InvalidArgumentError, Option, type Command } from 'commander';
import { machineSettings } from '../settings/setting-values.js';
import { SettingProblem, type Setting } from '../setting.js';

/** Port of the inspector relay (`@statelyai/inspect`'s own default). */
export const DEFAULT_INSPECT_PORT = 8080;

/** Commander parser for a whole number of at least `min` (and at most `max`). */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || n < min || n > max)
      throw new InvalidArgumentError(
        max === Number.MAX_SAFE_INTEGER
          ? `expected a whole number of at least ${min}`
          : `expected a whole number from ${min} to ${max}`,
      );
    return n;
  };
}

/** Commander parser for a finite number, 0 or more; `expected` says what it is in the error. */
function nonNegative(expected: string) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < 0)
      throw new InvalidArgumentError(`expected ${expected}`);
    return n;
  };
}

/** Commander parser for `--answer ASK_ID=TEXT`, repeatable: the pairs in the order given. */
export function answerPair(
  value: string,
  previous: Array<{ askId: string; text: string }> = [],
): Array<{ askId: string; text: string }> {
  const eq = value.indexOf('=');
  if (eq <= 0)
    throw new InvalidArgumentError(
      'expected ASK_ID=TEXT (the ask id as --status or the exit-2 JSON shows it)',
    );
  return [...previous, { askId: value.slice(0, eq), text: value.slice(eq + 1) }];
}

/** Commander parser for a non-negative amount of dollars. */
export const money = nonNegative('an amount in USD, 0 or more (0 = unlimited)');

/** Commander parser for a speed factor: a number, 0 or more. */
export const speedFactor = nonNegative('a number, 0 or more (0 = all at once)');

/** Values completion offers for an option that takes any other too (commander keeps no such list). */
const SUGGESTIONS = new WeakMap<Option, readonly string[]>();

/** What shell completion offers for an option whose value is free: its setting's suggestions, if any. */
export function suggestionsOf(option: Option): readonly string[] | undefined {
  return SUGGESTIONS.get(option);
}

/**
 * Commander's option for a setting of the table: its flag, its help with
 * the default (from the table's constant), its choices, and its check as
 * the parser, so a flag and the config file refuse a value with one line.
 */
export function settingOption<T, V>(setting: Setting<T, V>): Option {
  // A flag without a value is off unless given: its default says nothing.
  const shown =
    setting.defaultText && setting.flag!.includes('<') ? ` (default: ${setting.defaultText})` : '';
  const option = new Option(setting.flag!, `${setting.help}${shown}`);
  // The choices are also what shell completion offers (completion-model.ts reads them from the option).
  if (setting.choices) option.choices(setting.choices);
  if (setting.suggestions) SUGGESTIONS.set(option, setting.suggestions());
  if (!setting.flag!.includes('<') || setting.flagCheckedLater) return option;
  return option.argParser((raw: string, previous: unknown) => {
    try {
      const value = setting.check(setting.fromFlag ? setting.fromFlag(raw) : raw);
      return setting.repeatable
        ? setting.collect
          ? setting.collect(value, previous as T | undefined)
          : [...((previous as unknown[] | undefined) ?? []), value]
        : value;
    } catch (err) {
      if (err instanceof SettingProblem) throw new InvalidArgumentError(err.message);
      throw err;
    }
  });
}

/**
 * Adds the backends' settings of this machine (`--claude-bin`) to a command
 * that runs turns outside a run: merge, serve, worker, test.
 */
export function addMachineOptions(command: Command): Command {
  for (const [, setting] of machineSettings()) command.addOption(settingOption(setting));
  return command;
}
