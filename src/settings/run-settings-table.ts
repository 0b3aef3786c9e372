import { availableParallelism } from 'node:os';
import {
  DEFAULT_DISALLOWED_TOOLS,
  EFFORTS,
  isRunModel,
  MODEL_CHOICES,
  PERMISSION_MODES,
} from '../claude/claude-argv.js';
import { PI_THINKING } from '../pi/pi-argv.js';
import { ON_DENIAL_MODES } from '../language/grant.js';
import {
  isConfigNotify,
  isConfigNotifyUrl,
  notifyCommandsProblem,
  notifyUrlsProblem,
  notifyUrlProblem,
  configCommands,
  type ConfigNotify,
  type ConfigNotifyUrl,
} from '../notify/hook-spec.js';
import { MAX_TIMER_MS } from '../timer-delay.js';
import { DEFAULT_TASK_FOLDER_PATTERN, taskFolderPatternProblem } from '../task-folder-pattern.js';
import {
  DEFAULT_WORKTREE_MODE,
  ON_ASK_MODES,
  WORKTREE_MODES,
  type OnAskMode,
} from '../../machines/types.js';
import {
  type DefaultContext,
  atLeast,
  bool,
  listFromFlag,
  names,
  numberFromFlag,
  oneOf,
  refuse,
  setting,
  text,
  wholeAtLeast,
} from './setting.js';
import { runNameProblem } from './run-name.js';

/** Default step parallelism: one per core, at least two. */
export const DEFAULT_MAX_PARALLEL = Math.max(2, availableParallelism());
/** `--max-parallel` of a queued run when neither the flag nor the config gives one: the workers' --concurrency limits it. */
export const QUEUE_MAX_PARALLEL = 1000;
/** Seconds a step may print nothing before it is killed. */
export const DEFAULT_TIMEOUT_SECONDS = 600;
/** USD a run may cost before it starts no more steps. */
export const DEFAULT_BUDGET_USD = 10;
/** The default `--push-remote`. */
export const DEFAULT_PUSH_REMOTE = 'origin';
/** Claude Code's permission mode when permissions are not skipped. */
const DEFAULT_PERMISSION_MODE = 'acceptEdits';

/** Every effort a run-wide setting may give: Claude Code's and pi's; the workflow's backend decides when it starts. */
const RUN_EFFORTS: readonly string[] = [...new Set<string>([...EFFORTS, ...PI_THINKING])];

/** A config file's timeout in whole seconds: `ray` writes fractions, and 0 for never (the longest timer Node keeps). */
function wholeSeconds(seconds: number): number {
  return seconds === 0 ? Math.floor(MAX_TIMER_MS / 1000) : Math.ceil(seconds);
}

/** A `notify` value's words, checked: the command line a flag gives, or the config's shapes. */
function notifyValue(v: unknown): ConfigNotify {
  if (!isConfigNotify(v))
    refuse('expected a command line, an argv array of strings, or a list of those');
  const problem = notifyCommandsProblem(v);
  return problem === undefined ? v : refuse(problem);
}

function notifyUrlValue(v: unknown): ConfigNotifyUrl {
  if (!isConfigNotifyUrl(v)) refuse('expected an http(s) URL or a list of them');
  if (typeof v === 'string' && notifyUrlProblem(v) !== undefined)
    refuse('expected an http: or https: URL');
  const problem = notifyUrlsProblem(v);
  return problem === undefined ? v : refuse(problem);
}

/** A run's label: one line of a terminal. */
function label(v: unknown): string {
  if (typeof v !== 'string') refuse('expected a label');
  const problem = runNameProblem(v);
  return problem === undefined ? v : refuse(`the label ${problem}`);
}

function folderPattern(v: unknown): string {
  if (typeof v !== 'string') refuse('expected a path pattern');
  const problem = taskFolderPatternProblem(v);
  return problem === undefined ? v : refuse(problem);
}

/**
 * Every run setting: its flag, config key (the record's key; `queue.x` is
 * `x` under `[raymond.queue]`), stored name, default, help and check.
 * Commander's options, the config template and its parsing, a resume's
 * overrides, the state file's `options` and the configuration reference
 * are all made from this table: a new setting is one entry here.
 */
/** A state file written before on_ask was stored: its run never prompted. */
const ABSENT_ON_ASK: OnAskMode = 'reject';

export const RUN_SETTINGS = {
  max_parallel: setting({
    flag: '--max-parallel <n>',
    run: 'maxParallel',
    stored: 'max_parallel',
    scope: 'run',
    group: 'Run',
    help: 'most steps running at once',
    doc: 'Most steps running at once.',
    example: '4',
    defaultText: `the number of cores, at least 2; ${QUEUE_MAX_PARALLEL} with a queue`,
    check: wholeAtLeast(1, 'a whole number, 1 or more'),
    fromFlag: numberFromFlag,
    initial: ({ queued }: DefaultContext) => (queued ? QUEUE_MAX_PARALLEL : DEFAULT_MAX_PARALLEL),
  }),
  timeout: setting({
    flag: '--timeout <seconds>',
    run: 'timeoutSeconds',
    stored: 'timeout_seconds',
    scope: 'run',
    group: 'Run',
    help: 'kill a step that prints nothing for this long (0: never)',
    doc: 'Kill a step that prints nothing for this many seconds (0: never, as in ray; fractions round up).',
    example: String(DEFAULT_TIMEOUT_SECONDS),
    defaultText: String(DEFAULT_TIMEOUT_SECONDS),
    check: atLeast(0, 'a number of seconds, 0 or more (0: never)'),
    fromFlag: numberFromFlag,
    toRun: wholeSeconds,
    initial: () => DEFAULT_TIMEOUT_SECONDS,
  }),
  budget: setting({
    flag: '--budget <usd>',
    run: 'budgetUsd',
    stored: 'budget_usd',
    scope: 'run',
    group: 'Run',
    help: 'stop starting steps once the run cost more than this; 0 = unlimited',
    doc: 'Stop starting steps once the run cost more than this many USD (0 = unlimited).',
    example: DEFAULT_BUDGET_USD.toFixed(1),
    defaultText: String(DEFAULT_BUDGET_USD),
    check: atLeast(0, 'an amount in USD, 0 or more (0 = unlimited)'),
    fromFlag: numberFromFlag,
    initial: () => DEFAULT_BUDGET_USD,
  }),
  name: setting({
    flag: '--name <label>',
    run: 'name',
    stored: 'name',
    scope: 'run',
    group: 'Run',
    help: 'a label for this run, shown in the terminal title, --list and --status (with --resume: a new label)',
    doc: 'A label for the runs started in this project (as --name): shown in the terminal title, --list and --status.',
    example: '"nightly refactor"',
    defaultText: '',
    check: label,
  }),
  worktrees: setting({
    flag: '--worktrees <mode>',
    run: 'worktreeMode',
    stored: 'worktrees',
    scope: 'run',
    group: 'Agents',
    help: 'how agents with worktree="..." get folders: keep-ignored (a pool sized to --max-parallel), clean, or off (one per agent)',
    doc: 'How agents with worktree="..." get their folders: "keep-ignored" (a pool sized to --max-parallel; ignored files such as node_modules stay between agents), "clean" (the pool, ignored files removed too) or "off" (one folder per agent, kept until it ends).',
    example: `"${DEFAULT_WORKTREE_MODE}"`,
    defaultText: DEFAULT_WORKTREE_MODE,
    choices: WORKTREE_MODES,
    check: oneOf(WORKTREE_MODES),
    absentFromState: DEFAULT_WORKTREE_MODE,
    initial: () => DEFAULT_WORKTREE_MODE,
  }),
  task_folder_pattern: setting({
    run: 'taskFolderPattern',
    stored: 'task_folder_pattern',
    scope: 'run',
    group: 'Agents',
    help: '',
    doc: "Where each agent's task folder goes ({{task_folder}}, $RAYMOND_TASK_FOLDER), relative to the project root; {workflow_id} and {agent_id} are filled in. Fixed for a run's life: a resume keeps the run's own.",
    example: `"${DEFAULT_TASK_FOLDER_PATTERN}"`,
    defaultText: DEFAULT_TASK_FOLDER_PATTERN,
    check: folderPattern,
    absentFromState: DEFAULT_TASK_FOLDER_PATTERN,
    initial: () => DEFAULT_TASK_FOLDER_PATTERN,
  }),
  on_ask: setting({
    flag: '--on-ask <mode>',
    run: 'onAsk',
    stored: 'on_ask',
    scope: 'run',
    group: 'Asking',
    help: "what a state's <ask> does: prompt (ask at this terminal), pause (exit 2 with a JSON once every agent waits; answer with --resume ID --input TEXT), reject (pause an agent that asks)",
    doc: 'What a state\'s <ask> does: "prompt" asks at the terminal while the other agents go on, "pause" ends the run with exit 2 once every live agent waits (answer with --resume ID --input TEXT), "reject" pauses an agent that asks.',
    example: '"pause"',
    defaultText: 'prompt at a terminal, else reject',
    choices: ON_ASK_MODES,
    check: oneOf(ON_ASK_MODES),
    absentFromState: ABSENT_ON_ASK,
    initial: ({ interactive }: DefaultContext): OnAskMode => (interactive ? 'prompt' : 'reject'),
  }),
  model: setting({
    flag: '--model <model>',
    run: 'model',
    stored: 'model',
    nullable: true,
    scope: 'run',
    group: 'Claude Code',
    help: `model for markdown states whose frontmatter names none: ${MODEL_CHOICES}; on a pi workflow, a pi model (provider/id)`,
    doc: "Model for markdown states whose frontmatter names none (a pi workflow's: provider/id).",
    example: '"sonnet"',
    defaultText: "the backend's own",
    check: (v) =>
      typeof v === 'string' && isRunModel(v)
        ? v
        : refuse(`expected ${MODEL_CHOICES}, or a pi model (provider/id)`),
  }),
  effort: setting({
    flag: '--effort <level>',
    run: 'effort',
    stored: 'effort',
    nullable: true,
    scope: 'run',
    group: 'Claude Code',
    help: "effort for markdown states whose frontmatter names none (a pi workflow's: off, minimal, low, medium, high, xhigh)",
    doc: 'Effort for markdown states whose frontmatter names none (Claude Code: low, medium, high; pi: off, minimal, low, medium, high, xhigh).',
    example: '"medium"',
    defaultText: "the backend's own",
    choices: RUN_EFFORTS,
    check: oneOf(RUN_EFFORTS),
  }),
  dangerously_skip_permissions: setting({
    flag: '--dangerously-skip-permissions',
    run: 'skipPermissions',
    stored: 'dangerously_skip_permissions',
    scope: 'run',
    group: 'Claude Code',
    help: 'let Claude Code run any tool without asking (trusted workflows only)',
    doc: 'Let Claude Code run any tool without asking. Trusted workflows only.',
    example: 'false',
    defaultText: 'false',
    check: bool,
    initial: () => false,
  }),
  permission_mode: setting({
    flag: '--permission-mode <mode>',
    run: 'permissionMode',
    scope: 'process',
    group: 'Claude Code',
    help: "Claude Code's permission mode when permissions are not skipped",
    doc: "Claude Code's permission mode when permissions are not skipped.",
    example: `"${DEFAULT_PERMISSION_MODE}"`,
    defaultText: DEFAULT_PERMISSION_MODE,
    choices: PERMISSION_MODES,
    check: oneOf(PERMISSION_MODES),
  }),
  disallowed_tools: setting({
    flag: '--disallowed-tools <tools>',
    run: 'disallowedTools',
    scope: 'process',
    group: 'Claude Code',
    help: 'tools no Claude Code turn may call, separated by commas ("" for none)',
    doc: 'Tools no Claude Code turn may call (as ray): by default the interactive ones, which hang in -p mode. [] allows every tool.',
    example: `[${DEFAULT_DISALLOWED_TOOLS.map((t) => `"${t}"`).join(', ')}]`,
    defaultText: DEFAULT_DISALLOWED_TOOLS.join(','),
    check: (v): readonly string[] => names('a list of tool names')(v),
    fromFlag: listFromFlag,
    initial: () => DEFAULT_DISALLOWED_TOOLS,
  }),
  tools: setting({
    scope: 'process',
    group: 'Claude Code',
    help: '',
    doc: 'The only built-in tools a markdown state has, unless its workflow or frontmatter says (Claude Code: --tools; pi: --tools). [] gives none.',
    example: '["Read", "Grep", "Glob"]',
    defaultText: 'every built-in tool',
    check: names('a list of tool names'),
  }),
  allowed_tools: setting({
    scope: 'process',
    group: 'Claude Code',
    help: '',
    doc: 'Tools or patterns a markdown state may use without asking, unless its workflow or frontmatter says (Claude Code: --allowedTools).',
    example: '["Bash(git status:*)"]',
    defaultText: '',
    check: names('a list of tools or patterns'),
  }),
  on_denial: setting({
    scope: 'process',
    group: 'Claude Code',
    help: '',
    doc: 'What a tool call the state may not make does: "warn" shows it and counts it, "fail" fails the step (and so the agent).',
    example: '"warn"',
    defaultText: 'warn',
    check: oneOf(ON_DENIAL_MODES),
  }),
  claude_bin: setting({
    flag: '--claude-bin <path>',
    run: 'claudeBin',
    scope: 'process',
    group: 'Claude Code',
    help: 'the Claude Code executable',
    doc: 'The Claude Code executable.',
    example: '"/usr/local/bin/claude"',
    defaultText: 'claude on PATH',
    check: text('a path'),
  }),
  no_warm: setting({
    flag: '--no-warm',
    run: 'warm',
    scope: 'process',
    group: 'Claude Code',
    help: "a new Claude Code process for every turn, instead of keeping an agent's process between turns of one session",
    doc: "Start a new Claude Code process for every turn, instead of keeping an agent's process alive between its turns in one session.",
    example: 'false',
    defaultText: 'false',
    check: bool,
    toRun: (no: boolean) => !no,
    initial: () => true,
  }),
  no_debug: setting({
    flag: '--no-debug',
    run: 'debug',
    scope: 'process',
    group: 'Output',
    help: 'do not write debug logs under .raymond/debug/',
    doc: 'Do not write debug logs under .raymond/debug/.',
    example: 'false',
    defaultText: 'false',
    check: bool,
    toRun: (no: boolean) => !no,
    initial: () => true,
  }),
  no_wait: setting({
    flag: '--no-wait',
    scope: 'command',
    group: 'Run',
    help: 'when every agent hit a usage limit, end the run as paused instead of waiting',
    doc: 'When every agent hit a usage limit, end the run as paused instead of waiting for the reset.',
    example: 'false',
    defaultText: 'false',
    check: bool,
  }),
  verbose: setting({
    flag: '--verbose',
    scope: 'command',
    group: 'Output',
    help: 'more detail on stderr, with stack traces',
    doc: 'More detail on stderr, with stack traces (as --verbose).',
    example: 'false',
    defaultText: 'false',
    check: bool,
  }),
  notify: setting({
    flag: '--notify <cmd>',
    repeatable: true,
    scope: 'command',
    group: 'Notifications',
    help: "run this command (no shell; repeatable) when the run ends, the event as JSON on its stdin and in $RAYMOND_EVENT (replaces the config's notify)",
    doc: 'Commands notified of the run\'s events (as --notify): run without a shell, the event as JSON on stdin and in RAYMOND_EVENT. A string is split into words as a shell would, with no expansion; ["prog", "arg"] is one argv; [["a"], "b c"] is two commands.',
    example: '["notify-send", "Raymond"]',
    defaultText: '',
    check: notifyValue,
    collect: (v, before) => [
      ...(before === undefined ? [] : configCommands(before)),
      ...configCommands(v),
    ],
  }),
  notify_url: setting({
    flag: '--notify-url <url>',
    repeatable: true,
    scope: 'command',
    group: 'Notifications',
    help: "POST the event as JSON to this http(s) URL (repeatable) when the run ends (replaces the config's notify_url)",
    doc: "URLs the run's events are POSTed to as JSON (as --notify-url). Use https for anything off this machine: the JSON holds prompts and results.",
    example: '"https://example.com/hooks/raymond"',
    defaultText: '',
    check: notifyUrlValue,
    collect: (v, before) => [...(before === undefined ? [] : [before].flat()), ...[v].flat()],
  }),
  'queue.url': setting({
    flag: '--queue <url>',
    stored: 'queue',
    scope: 'run',
    group: 'Queue (many machines)',
    help: 'run the steps on worker machines (raymond worker) through BullMQ on Redis: redis://[user:password@]host:port[/db] or rediss://',
    doc: 'Run the steps on worker machines through BullMQ on Redis: redis://[user:password@]host:port[/db] or rediss://... (the state file keeps it without its password).',
    example: '"redis://127.0.0.1:6379"',
    defaultText: 'none: the steps run here',
    check: (v) =>
      typeof v === 'string' && /^rediss?:\/\//.test(v)
        ? v
        : refuse('expected a redis:// or rediss:// URL'),
    flagCheckedLater: true,
  }),
  'queue.secret_file': setting({
    flag: '--queue-secret-file <file>',
    scope: 'process',
    group: 'Queue (many machines)',
    help: "with --queue: the file holding the workers' shared secret",
    doc: "The file holding the workers' shared secret, relative to the project folder.",
    example: '".raymond/queue-secret"',
    defaultText: '$RAYMOND_QUEUE_SECRET',
    check: text('a file'),
  }),
  'queue.push_remote': setting({
    flag: '--push-remote <remote>',
    stored: 'push_remote',
    scope: 'run',
    group: 'Queue (many machines)',
    help: "with --queue: where workers push agents' worktree branches",
    doc: "Where workers push agents' worktree branches.",
    example: `"${DEFAULT_PUSH_REMOTE}"`,
    defaultText: DEFAULT_PUSH_REMOTE,
    check: text('a git remote name or URL'),
  }),
};

/** The table's type, for the types made from it. */
export type RunSettingsTable = typeof RUN_SETTINGS;
