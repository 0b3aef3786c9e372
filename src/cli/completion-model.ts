import type { Command, Option } from 'commander';
import { suggestionsOf } from './options.js';

/** What a shell completes after an option: nothing (a flag), a folder, a file, one of its choices, or free text. */
export type ValueKind = 'none' | 'dir' | 'file' | 'choices' | 'text';

/** One option as completion offers it. */
export interface CompletionOption {
  /** Its spellings: `--json`, or `-v` and `--version`. */
  flags: string[];
  summary: string;
  value: ValueKind;
  choices: string[];
}

/** One command (the program itself has the empty key) as completion offers it. */
export interface CompletionCommand {
  /** The command's path below the program, joined by `:`: `''`, `lint`, `serve:list`. */
  key: string;
  summary: string;
  options: CompletionOption[];
  /** Its subcommands by name, with their summaries. */
  subcommands: { name: string; summary: string }[];
  /** Words its arguments can be (an argument's choices). */
  words: string[];
  /** Whether an argument is a path: file names are completed. */
  files: boolean;
}

/** Arguments whose value is a file or folder on disk, by the name the program gives them. */
const PATH_ARGUMENTS = new Set(['path', 'trace', 'file']);

/** The first clause of a help text, short enough for a completion menu. */
export function summaryOf(description: string): string {
  const first = description.split(/; | \(|: /)[0]!.trim();
  return first.length > 70 ? `${first.slice(0, 69)}…` : first;
}

/** What an option's value is, read from its value name: `<dir>` a folder, `<file>` or `<path>` a file. */
function valueOf(option: Option): ValueKind {
  // An optional value (`--inspect [port]`) is never completed: the next word may as well be the workflow.
  if (!option.required) return 'none';
  if (option.argChoices || suggestionsOf(option)) return 'choices';
  const name = /[<[]([^>\]]+)[>\]]/.exec(option.flags)?.[1] ?? '';
  if (name === 'dir') return 'dir';
  return ['file', 'path'].includes(name) ? 'file' : 'text';
}

function optionOf(option: Option): CompletionOption {
  return {
    flags: [option.short, option.long].filter((f): f is string => f !== undefined),
    summary: summaryOf(option.description),
    value: valueOf(option),
    choices: option.argChoices ?? [...(suggestionsOf(option) ?? [])],
  };
}

/**
 * Every visible command of `program` with its visible options, read from
 * commander at run time: completion follows whatever options the program
 * has now. Parents come before their subcommands.
 */
export function completionModel(program: Command): CompletionCommand[] {
  const out: CompletionCommand[] = [];
  const visit = (command: Command, path: string[], siblings: string[]): void => {
    const help = command.createHelp();
    const subcommands = help.visibleCommands(command);
    const args = command.registeredArguments;
    // `help COMMAND` takes the name of one of its siblings.
    const names = command.name() === 'help' && path.length === 1 ? siblings : [];
    out.push({
      key: path.join(':'),
      summary: summaryOf(command.description()),
      options: help.visibleOptions(command).map(optionOf),
      subcommands: subcommands.map((c) => ({
        name: c.name(),
        summary: summaryOf(c.description()),
      })),
      words: [...names, ...args.flatMap((a) => a.argChoices ?? [])],
      files: args.some((a) => PATH_ARGUMENTS.has(a.name())),
    });
    for (const sub of subcommands)
      visit(
        sub,
        [...path, sub.name()],
        subcommands.map((c) => c.name()).filter((n) => n !== 'help'),
      );
  };
  visit(program, [], []);
  return out;
}
