import { availableParallelism } from 'node:os';
import { InvalidArgumentError } from 'commander';
import { isRunModel, MODEL_CHOICES } from '../claude/claude-argv.js';
import { runNameProblem } from '../config/config-file.js';
import { notifyUrlProblem } from '../notify/hook-spec.js';
import { splitCommand } from '../notify/split-command.js';

/** Default step parallelism: one per core, at least two. */
export const DEFAULT_MAX_PARALLEL = Math.max(2, availableParallelism());
/** `--max-parallel` of a queued run when neither the flag nor the config gives one: the workers' --concurrency limits it. */
export const QUEUE_MAX_PARALLEL = 1000;
export const DEFAULT_TIMEOUT_SECONDS = 600;

/** Port of the inspector relay (`@statelyai/inspect`'s own default). */
export const DEFAULT_INSPECT_PORT = 8080;

/** Commander parser for a whole number of at least `min` (and at most `max`). */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || n < min || n > max) throw new InvalidArgumentError(max === Number.MAX_SAFE_INTEGER ? `expected a whole number of at least ${min}` : `expected a whole number from ${min} to ${max}`);
    return n;
  };
}

export const DEFAULT_BUDGET_USD = 10;

/** Commander parser for a finite number, 0 or more; `expected` says what it is in the error. */
function nonNegative(expected: string) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError(`expected ${expected}`);
    return n;
  };
}

/**
 * Commander parser for `--model`: a Claude alias or full name, or a pi
 * model (`provider/id`); which of them the workflow's backend takes is
 * checked when the run starts.
 */
export function modelName(value: string): string {
  if (!isRunModel(value)) throw new InvalidArgumentError(`expected ${MODEL_CHOICES}, or a pi model (provider/id)`);
  return value;
}

/** Commander parser for `--name`: a one-line label. */
export function runName(value: string): string {
  const problem = runNameProblem(value);
  if (problem) throw new InvalidArgumentError(`the label ${problem}`);
  return value;
}

/** Commander parser for `--answer ASK_ID=TEXT`, repeatable: the pairs in the order given. */
export function answerPair(value: string, previous: Array<{ askId: string; text: string }> = []): Array<{ askId: string; text: string }> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError('expected ASK_ID=TEXT (the ask id as --status or the exit-2 JSON shows it)');
  return [...previous, { askId: value.slice(0, eq), text: value.slice(eq + 1) }];
}

/** Commander parser for `--disallowed-tools`: names separated by commas (a name may hold spaces: `Bash(git *)`); empty: none. */
export function toolList(value: string): string[] {
  return value.split(',').map((t) => t.trim()).filter((t) => t !== '');
}

/** Commander parser for a non-negative amount of dollars. */
export const money = nonNegative('an amount in USD, 0 or more (0 = unlimited)');

/** Commander parser for a speed factor: a number, 0 or more. */
export const speedFactor = nonNegative('a number, 0 or more (0 = all at once)');

/** Commander parser for `--notify CMD` (repeatable): each command line split into argv, as a shell splits words but expanding nothing. */
export function notifyCommand(value: string, previous: string[][] | undefined): string[][] {
  const split = splitCommand(value);
  if (!split.ok) throw new InvalidArgumentError(`the command ${split.problem}`);
  return [...(previous ?? []), split.argv];
}

/** Commander parser for `--notify-url URL` (repeatable): http or https only. */
export function notifyUrl(value: string, previous: string[] | undefined): string[] {
  if (notifyUrlProblem(value) !== undefined) throw new InvalidArgumentError('expected an http: or https: URL');
  return [...(previous ?? []), value];
}
