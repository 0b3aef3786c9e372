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
  above,
  bool,
  atLeast,
  numberFromFlag,
  oneOf,
  refuse,
  setting,
  wholeAtLeast,
} from '../setting.js';
import { runNameProblem } from './run-name.js';
import {
  DEFAULT_BUDGET_USD,
  DEFAULT_MAX_PARALLEL,
  DEFAULT_TIMEOUT_SECONDS,
  QUEUE_MAX_PARALLEL,
} from './run-setting-defaults.js';

/** A config file's timeout in whole seconds: `ray` writes fractions, and 0 for never (the longest timer Node keeps). */
function wholeSeconds(seconds: number): number {
  return seconds === 0 ? Math.floor(MAX_TIMER_MS / 1000) : Math.ceil(seconds);
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

/** A state file written before on_ask was stored: its run never prompted. */
const ABSENT_ON_ASK: OnAskMode = 'reject';

/**
 * The run settings of the help groups Run, Agents and Asking, in the order the
 * help, the config template and the reference show them (RUN_SETTINGS merges them).
 */
export const RUN_AGENT_SETTINGS = {
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
  no_adaptive_width: setting({
    flag: '--no-adaptive-width',
    run: 'adaptiveWidth',
    scope: 'process',
    group: 'Run',
    help: 'start turns up to --max-parallel whatever the API answers, rather than as many as each account serves (see docs/big-runs.md)',
    doc: "Start markdown turns up to `max_parallel` whatever the API answers, rather than adapting to each account's rate limits (docs/big-runs.md). For comparison: a run goes slower with it.",
    example: 'false',
    defaultText: 'false',
    check: bool,
    toRun: (no: boolean) => !no,
    initial: () => true,
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
  budget_hard: setting({
    flag: '--budget-hard',
    run: 'budgetHard',
    stored: 'budget_hard',
    scope: 'run',
    group: 'Run',
    help: "hold --budget inside turns too: stop the turns running once their streamed cost takes the run to it (their agents pause, sessions kept); a branch's budget stops its own turns (its workers fail)",
    doc: "Hold the budget inside turns too: once the run's cost, with what the running turns have streamed so far, reaches `budget`, those turns are stopped; their agents pause with their sessions kept, and `--resume ID --budget MORE` goes on. The run ends within the budget plus about one model message. A branch's budget (`<fork budget>`, `budget_per_agent`) is held the same way: its turns are stopped at it, and its workers fail with error `budget`. Kept by a resume.",
    example: 'false',
    defaultText: 'false',
    check: bool,
  }),
  confirm_over: setting({
    flag: '--confirm-over <usd>',
    run: 'confirmOverUsd',
    stored: 'confirm_over_usd',
    scope: 'run',
    group: 'Run',
    help: 'ask before a step or a fork whose forecast would take the run past this many USD (answer yes, stop or a new amount)',
    doc: 'Ask before going on when a step, or a <fork> of N workers, is forecast to take the run (spent plus forecast) past this many USD; the answer goes on, stops, or gives a new amount. Asked as an <ask> is; with no terminal and no --on-ask the run stops with one line. Unset: never ask.',
    example: '5.0',
    defaultText: 'never ask',
    check: above(0, 'an amount in USD, more than 0'),
    fromFlag: numberFromFlag,
  }),
  max_agents: setting({
    flag: '--max-agents <n>',
    run: 'maxAgents',
    stored: 'max_agents',
    scope: 'run',
    group: 'Run',
    help: 'refuse a <fork> that would take the run past this many live agents (the run fails)',
    doc: 'Refuse any <fork> that would take the run past this many live agents: the forking agent fails with one line naming its state, and the run with it. Unset: no limit.',
    example: '100',
    defaultText: 'no limit',
    check: wholeAtLeast(1, 'a whole number, 1 or more'),
    fromFlag: numberFromFlag,
  }),
  budget_per_agent: setting({
    flag: '--budget-per-agent <usd>',
    run: 'budgetPerAgentUsd',
    stored: 'budget_per_agent_usd',
    scope: 'run',
    group: 'Run',
    help: "give every forked worker that names no budget= this budget for its branch (it and the workers it forks); a spent branch's worker fails alone",
    doc: 'The budget of every forked worker whose <fork> names no budget="USD": the worker and every worker it forks in turn may spend this much together; a branch out of money ends its worker as failed (error budget), its join gets it, and the run goes on. Unset: no branch budget.',
    example: '0.50',
    defaultText: 'none',
    check: above(0, 'an amount in USD, more than 0'),
    fromFlag: numberFromFlag,
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
};
