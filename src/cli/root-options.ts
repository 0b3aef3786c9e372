import { type Command, Option } from 'commander';
import type { HelpGroup } from '../setting.js';
import { helpGroups, settingEntries } from '../settings/setting-values.js';
import { DEFAULT_INSPECT_PORT, answerPair, integer, settingOption } from './options.js';

/** A root option that is no setting of the run: it says what to do, or how to show it. */
interface ActionOption {
  flags: string;
  help: string;
  group: HelpGroup;
  parse?: (value: string, previous: never) => never;
}

/** The root options beside the settings table's, each under its group of `--help`. */
const ACTION_OPTIONS: readonly ActionOption[] = [
  {
    flags: '--input <text>',
    help: 'value of {{input}} (and $RAYMOND_INPUT) for the first state',
    group: 'Run',
  },
  {
    flags: '--workflow-id <id>',
    help: 'id of this run (letters, digits, - and _); default <scope>-<8 hex>',
    group: 'Run',
  },
  {
    flags: '--continue-session',
    help: "the main agent's first markdown turn continues your newest Claude Code session in this folder (forked: yours stays as it was)",
    group: 'Agent turns',
  },
  {
    flags: '--answer <ASK_ID=TEXT>',
    help: 'with --resume: answer that pending ask (repeatable; --input answers the oldest)',
    group: 'Asking',
    parse: answerPair as unknown as ActionOption['parse'],
  },
  { flags: '--resume <id>', help: 'continue a run from its state file', group: 'Runs and state' },
  {
    flags: '--allow-changes',
    help: 'with --resume: accept state files edited since the run started',
    group: 'Runs and state',
  },
  { flags: '--list', help: 'list the runs in the state folder', group: 'Runs and state' },
  {
    flags: '--status <id>',
    help: "show a run's agents, cost and results",
    group: 'Runs and state',
  },
  { flags: '--recover', help: 'list the runs that can be resumed', group: 'Runs and state' },
  {
    flags: '--state-dir <dir>',
    help: "folder of state files (default: .raymond/state of the project: the nearest .raymond upward, or the repository's top)",
    group: 'Runs and state',
  },
  {
    flags: '--init-config',
    help: 'write .raymond/config.toml with every option explained',
    group: 'Runs and state',
  },
  { flags: '--json', help: 'machine-readable output on stdout', group: 'Output' },
  { flags: '--quiet', help: 'no progress lines on stderr', group: 'Output' },
  {
    flags: '--inspect [port]',
    help: `watch the agent machines live in a browser: Raymond's own page (/live, works offline) and the Stately inspector, served on 127.0.0.1 (default port ${DEFAULT_INSPECT_PORT})`,
    group: 'Inspection',
    parse: integer(1, 65535) as unknown as ActionOption['parse'],
  },
  {
    flags: '--inspect-full',
    help: 'with --inspect or --trace: include prompts, inputs and results',
    group: 'Inspection',
  },
  {
    flags: '--inspect-agents <glob>',
    help: 'with --inspect or --trace: only agents whose id matches (e.g. "main_worker1*")',
    group: 'Inspection',
  },
  {
    flags: '--inspect-wait',
    help: 'with --inspect: start the run once the inspector page is open',
    group: 'Inspection',
  },
  {
    flags: '--trace <file>',
    help: 'write every inspection event (actors, snapshots, events) to this file as JSON lines',
    group: 'Inspection',
  },
];

/** The heading of a group in `--help`. */
function groupHeading(group: string): string {
  return `${group} options:`;
}

/**
 * Adds the root command's options, group by group in the order `--help`
 * shows them: within a group, the settings table's first, then the others.
 */
export function addRootOptions(program: Command): Command {
  for (const group of helpGroups()) {
    for (const [, setting] of settingEntries()) {
      if (setting.flag && setting.group === group)
        program.addOption(settingOption(setting).helpGroup(groupHeading(group)));
    }
    for (const action of ACTION_OPTIONS) {
      if (action.group !== group) continue;
      const option = new Option(action.flags, action.help).helpGroup(groupHeading(group));
      program.addOption(action.parse ? option.argParser(action.parse) : option);
    }
  }
  return program;
}

/** The examples at the end of `raymond --help`. */
export const ROOT_EXAMPLES = `
Examples:
  raymond workflows/examples/hello                 run a workflow folder (its 1_START or START state)
  raymond flow/ --input "fix the flaky test"       give the first state its {{input}}
  raymond flow/ --on-ask pause --json              exit 2 with the question as JSON when it asks
  raymond --resume flow-1a2b3c4d --input "yes"     answer the oldest pending ask and go on
  raymond --list                                   the runs of this project
  raymond lint flow/                               check a workflow without running it
  raymond --init-config                            write .raymond/config.toml, every setting explained
  raymond help merge                               the help of one command
`;
