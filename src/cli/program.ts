import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRaymondDir } from '../raymond-folder.js';
import { Command, CommanderError, Option } from 'commander';
import { ON_ASK_MODES, WORKTREE_MODES } from '../../machines/types.js';
import { DEFAULT_DISALLOWED_TOOLS, EFFORTS, MODEL_CHOICES, PERMISSION_MODES } from '../claude/claude-argv.js';
import { PI_THINKING } from '../pi/pi-argv.js';
import { initConfig } from '../config/config-file.js';
import { RaymondError } from '../errors.js';
import { DEFAULT_BUDGET_USD, DEFAULT_INSPECT_PORT, DEFAULT_MAX_PARALLEL, DEFAULT_TIMEOUT_SECONDS, answerPair, integer, modelName, money, notifyCommand, notifyUrl, runName, speedFactor, toolList } from './options.js';
import type { DiagramOptions } from './diagram-command.js';
import { listRuns, runStatus, runWorktrees } from './runs-command.js';
import { EXIT } from './exit-codes.js';
import { jsonSummary, runCommand } from './run-command.js';
import type { CliFlags } from './settings.js';

/** The package's version, read from package.json both from `src/` (tsx) and from `dist/src/`. */
function packageVersion(): string {
  for (const relative of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'raymond' && pkg.version) return pkg.version;
    } catch {
      // Not at this level; try the next.
    }
  }
  return 'unknown';
}

function usage(message: string): never {
  throw new RaymondError('ERR_USAGE', `${message} (run raymond --help for usage)`);
}

/** What the command line ends with: the exit code, and how an error is shown on stdout. */
export interface CliResult {
  exitCode: number;
  /**
   * Set by a command once its options are read: how it shows an error as
   * JSON on stdout (given --json), or null (not given). Undefined while the
   * options are still being read.
   */
  jsonError?: ((error: string, code: string) => string) | null;
}

/** The JSON object a command given --json prints on stdout when it fails. */
export function jsonError(error: string, code: string): string {
  return JSON.stringify({ error, code });
}

/**
 * Commander's own mistakes (an unknown option, a missing argument) become
 * Raymond's usage errors, shown by main.ts like any other: one `raymond:`
 * line saying where help is, exit 64 (EXIT.invalid). Help and --version end with exit 0.
 */
function usageErrors(command: Command, name: string): Command {
  return command.exitOverride((err: CommanderError) => {
    if (err.exitCode === 0) throw err;
    // A value quoted back may hold a newline: escaped, the message stays one line.
    // eslint-disable-next-line no-control-regex
    const message = err.message.replace(/^error: /, '').replace(/[\u0000-\u001f]/g, (c) => JSON.stringify(c).slice(1, -1));
    throw new RaymondError('ERR_USAGE', `${message} (run ${name} --help for usage)`);
  });
}

/** Runs the action the flags ask for and returns the exit code. */
/** The project's state folder, found as `ray` finds `.raymond` (raymond-folder.ts). */
function defaultStateDir(): string {
  return join(projectRaymondDir(process.cwd()), 'state');
}

async function dispatch(path: string | undefined, flags: CliFlags, result: CliResult): Promise<number> {
  const running = !flags.list && flags.status === undefined && !flags.recover && !flags.initConfig;
  // A run that fails before it starts still answers with its summary's shape.
  result.jsonError = !flags.json ? null : running ? (error) => jsonSummary({ status: 'failed', error }) : jsonError;
  // An empty id is still the mode it names, and is refused as an id.
  const modes = [flags.resume !== undefined && '--resume', flags.list && '--list', flags.status !== undefined && '--status', flags.recover && '--recover', flags.initConfig && '--init-config'].filter(Boolean);
  if (modes.length > 1) usage(`${modes.join(' and ')} cannot be combined`);
  if (modes.length === 1 && path) usage(`${modes[0]} takes no workflow path`);
  if (flags.continueSession && (modes.length > 0 || !path)) usage('--continue-session starts a new run: give a workflow, not --resume');
  if (flags.answer && flags.resume === undefined) usage('--answer answers a pending ask of a run: give it with --resume ID');
  const print = (text: string) => process.stdout.write(`${text}\n`);
  flags.stateDirGiven = flags.stateDir !== undefined;
  flags.stateDir ??= defaultStateDir();
  if (flags.initConfig) {
    print(`wrote ${await initConfig(process.cwd())}`);
    return EXIT.completed;
  }
  if (flags.list || flags.recover) {
    print(await listRuns(flags.stateDir, { json: !!flags.json, recover: !!flags.recover }));
    return EXIT.completed;
  }
  if (flags.status !== undefined) {
    print(await runStatus(flags.stateDir, flags.status, !!flags.json));
    return EXIT.completed;
  }
  if (flags.resume === undefined && !path) usage('give a workflow (a state file, a folder, a .zip or an https URL of a hashed .zip), or --resume ID');
  const inspecting = flags.inspect !== undefined || flags.trace !== undefined;
  if (!inspecting && (flags.inspectFull || flags.inspectAgents !== undefined)) usage('--inspect-full and --inspect-agents need --inspect or --trace');
  if (flags.inspectWait && flags.inspect === undefined) usage('--inspect-wait needs --inspect');
  return runCommand(path, flags);
}

/**
 * `--inspect` takes its port only as `--inspect=PORT` or `--inspect PORT`
 * with digits: `raymond --inspect my-workflow` must not read the workflow as
 * a port, which commander's optional values would.
 */
export function normalizeArgv(argv: string[]): string[] {
  return argv.map((a, i) => (a === '--inspect' && !/^\d+$/.test(argv[i + 1] ?? '') ? `--inspect=${DEFAULT_INSPECT_PORT}` : a));
}

/**
 * Builds the command line. The action stores its exit code in `result`, so
 * that only the entry point sets the process exit code.
 */
export function buildProgram(result: CliResult): Command {
  // Commander prints nothing itself: its errors reach main.ts as usage errors, shown in Raymond's
  // one style. Subcommands copy the output settings when they are created, so they come first.
  // Positional options let `lint PATH --json` mean the subcommand's --json rather than the root's.
  const program = usageErrors(new Command(), 'raymond')
    .configureOutput({ outputError: () => {} })
    .enablePositionalOptions();
  program
    .name('raymond')
    .usage('PATH [options]  |  --resume ID  |  --list  |  --status ID  |  --recover  |  --init-config  |  worktrees ID [--prune]  |  merge ID --into BRANCH  |  lint PATH  |  diagram PATH  |  convert PATH  |  replay TRACE  |  serve --root DIR  |  worker --queue URL  |  workers --queue URL')
    .description('Run a workflow of markdown prompts and shell scripts linked by transition tags.')
    .version(packageVersion())
    .argument('[path]', 'a state file, a workflow folder (entry 1_START or START), a .zip of one, or the URL of a hashed .zip')
    .option('--input <text>', 'value of {{input}} (and $RAYMOND_INPUT) for the first state')
    .option('--workflow-id <id>', 'id of this run (letters, digits, - and _); default <scope>-<8 hex>')
    .addOption(new Option('--on-ask <mode>', 'what a state\'s <ask> does: prompt (ask at this terminal; the default at one), pause (exit 2 with a JSON once every agent waits; answer with --resume ID --input TEXT), reject (pause an agent that asks; the default without a terminal)').choices(ON_ASK_MODES))
    .addOption(new Option('--answer <ASK_ID=TEXT>', 'with --resume: answer that pending ask (repeatable; --input answers the oldest)').argParser(answerPair))
    .addOption(new Option('--name <label>', 'a label for this run, shown in the terminal title, --list and --status (with --resume: a new label)').argParser(runName))
    .option('--state-dir <dir>', "folder of state files (default: .raymond/state of the project: the nearest .raymond upward, or the repository's top)")
    .addOption(new Option('--max-parallel <n>', `most steps running at once (default: ${DEFAULT_MAX_PARALLEL}, the number of cores)`).argParser(integer(1)))
    .addOption(new Option('--timeout <seconds>', `kill a step that prints nothing for this long (default: ${DEFAULT_TIMEOUT_SECONDS})`).argParser(integer(1)))
    .addOption(new Option('--budget <usd>', `stop starting steps once the run cost more than this; 0 = unlimited (default: ${DEFAULT_BUDGET_USD})`).argParser(money))
    .addOption(new Option('--model <model>', `model for markdown states whose frontmatter names none: ${MODEL_CHOICES}; on a pi workflow, a pi model (provider/id)`).argParser(modelName))
    .addOption(new Option('--effort <level>', "effort for markdown states whose frontmatter names none (a pi workflow's: off, minimal, low, medium, high, xhigh)").choices([...new Set<string>([...EFFORTS, ...PI_THINKING])]))
    .option('--dangerously-skip-permissions', 'let Claude Code run any tool without asking (trusted workflows only)')
    .addOption(new Option('--permission-mode <mode>', "Claude Code's permission mode when permissions are not skipped (default: acceptEdits)").choices(PERMISSION_MODES))
    .option('--disallowed-tools <tools>', `tools no Claude Code turn may call, separated by commas ("" for none; default: ${DEFAULT_DISALLOWED_TOOLS.join(',')})`, toolList)
    .option('--claude-bin <path>', 'the Claude Code executable (default: claude on PATH)')
    .addOption(new Option('--worktrees <mode>', 'how agents with worktree="..." get folders: keep-ignored (a pool sized to --max-parallel, the default), clean, or off (one per agent)').choices(WORKTREE_MODES))
    .option('--no-debug', 'do not write debug logs under .raymond/debug/')
    .option('--no-wait', 'when every agent hit a usage limit, end the run as paused instead of waiting')
    .option('--no-warm', "a new Claude Code process for every turn, instead of keeping an agent's process between turns of one session")
    .option('--notify <cmd>', "run this command (no shell; repeatable) when the run ends, the event as JSON on its stdin and in $RAYMOND_EVENT (replaces the config's notify)", notifyCommand)
    .option('--notify-url <url>', "POST the event as JSON to this http(s) URL (repeatable) when the run ends (replaces the config's notify_url)", notifyUrl)
    .option('--queue <url>', 'run the steps on worker machines (raymond worker) through BullMQ on Redis: redis://[user:password@]host:port[/db] or rediss:// (config [raymond.queue] url)')
    .option('--queue-secret-file <file>', "with --queue: the file holding the workers' shared secret (default: $RAYMOND_QUEUE_SECRET)")
    .option('--push-remote <remote>', "with --queue: where workers push agents' worktree branches (default: origin)")
    .option('--resume <id>', 'continue a run from its state file')
    .option('--continue-session', "the main agent's first markdown turn continues your newest Claude Code session in this folder (forked: yours stays as it was)")
    .option('--allow-changes', 'with --resume: accept state files edited since the run started')
    .option('--list', 'list the runs in the state folder')
    .option('--status <id>', "show a run's agents, cost and results")
    .option('--recover', 'list the runs that can be resumed')
    .option('--init-config', 'write .raymond/config.toml with every option explained')
    .option('--json', 'machine-readable output on stdout')
    .option('--quiet', 'no progress lines on stderr')
    .option('--verbose', 'more detail on stderr, with stack traces')
    .addOption(new Option('--inspect [port]', `watch the agent machines live in a browser: Raymond's own page (/live, works offline) and the Stately inspector, served on 127.0.0.1 (default port ${DEFAULT_INSPECT_PORT})`).argParser(integer(1, 65535)))
    .option('--inspect-full', 'with --inspect or --trace: include prompts, inputs and results')
    .option('--inspect-agents <glob>', 'with --inspect or --trace: only agents whose id matches (e.g. "main_worker1*")')
    .option('--inspect-wait', 'with --inspect: start the run once the inspector page is open')
    .option('--trace <file>', 'write every inspection event (actors, snapshots, events) to this file as JSON lines')
    .action(async (path: string | undefined, flags: CliFlags) => {
      result.exitCode = await dispatch(path, flags, result);
    });
  program
    .command('worktrees')
    .description("list a run's branches: commits, diffstat, where each is checked out now")
    .argument('<id>', 'the run')
    .option('--prune', "remove the run's worktree folders, keep the branches")
    .option('--state-dir <dir>', 'folder of state files (default: .raymond/state of the project)')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: { prune?: boolean; stateDir?: string; json?: boolean }) => {
      result.jsonError = opts.json ? jsonError : null;
      process.stdout.write(`${await runWorktrees(opts.stateDir ?? defaultStateDir(), id, { prune: !!opts.prune, json: !!opts.json })}\n`);
      result.exitCode = EXIT.completed;
    });
  program
    .command('merge')
    .description("merge a run's agent branches into one branch, one at a time, each checked; conflicts and failed checks go back to the agent's session")
    .argument('<id>', 'the run')
    .requiredOption('--into <branch>', "the branch to merge into (made from the run's base if it does not exist; never a checked-out one)")
    .option('--check <cmd>', 'run this (sh -c) after each merge; a merge it fails on is not kept')
    .addOption(new Option('--retries <n>', 'most resolution turns per branch by the agent that made it').argParser(integer(0)).default(2))
    .addOption(new Option('--budget <usd>', "no resolution turn once the run's cost plus merge's reaches this; 0 = unlimited (default: the run's budget)").argParser(money))
    .option('--delete-merged', 'delete the merged agent branches (and their fix branches)')
    .option('--state-dir <dir>', 'folder of state files (default: .raymond/state of the project)')
    .option('--claude-bin <path>', 'the Claude Code executable (default: claude on PATH)')
    .option('--json', 'the report as JSON on stdout')
    .option('--quiet', 'no progress lines on stderr')
    .action(async (id: string, opts: Omit<import('./merge-command.js').MergeFlags, 'stateDir'> & { stateDir?: string }) => {
      result.jsonError = opts.json ? jsonError : null;
      const { mergeCommand } = await import('./merge-command.js');
      result.exitCode = await mergeCommand(id, { ...opts, stateDir: opts.stateDir ?? defaultStateDir() });
    });
  program
    .command('lint')
    .description('check a workflow without running it: targets, frontmatter, reachability')
    .argument('<path>', 'a state file, a workflow folder, a .zip or its URL')
    .option('--json', 'machine-readable output')
    .addOption(new Option('--level <level>', 'least severity shown (the counts are of all findings)').choices(['info', 'warning', 'error']).default('warning'))
    .option('--win', 'check the workflow as Windows runs it (.bat/.ps1 scripts)')
    .action(async (path: string, opts: { json?: boolean; level: 'info' | 'warning' | 'error'; win?: boolean }) => {
      result.jsonError = opts.json ? jsonError : null;
      const { lintCommand } = await import('./lint-command.js');
      result.exitCode = await lintCommand(path, { json: !!opts.json, level: opts.level, win: !!opts.win });
    });
  program
    .command('diagram')
    .description('draw a workflow: Mermaid on stdout, or an HTML page or an XState machine')
    .argument('<path>', 'a state file, a workflow folder, a .zip or its URL')
    .option('--html <file>', 'write a self-contained HTML page (click a state to see its file)')
    .option('--xstate <file>', 'write an XState machine config (JSON)')
    .option('--win', 'draw the workflow as Windows runs it (.bat/.ps1 scripts)')
    .action(async (path: string, opts: DiagramOptions) => {
      const { diagramCommand } = await import('./diagram-command.js');
      result.exitCode = await diagramCommand(path, opts);
    });
  program
    .command('convert')
    .description('write a folder or zip workflow as one YAML file')
    .argument('<path>', 'a workflow folder or a .zip')
    .option('--output <file>', 'write the YAML here instead of stdout')
    .action(async (path: string, opts: { output?: string }) => {
      const { convertCommand } = await import('./convert-command.js');
      result.exitCode = await convertCommand(path, opts);
    });
  program
    .command('replay')
    .description('replay a --trace file into the Stately inspector')
    .argument('<trace>', 'a file written by --trace')
    .addOption(new Option('--port <port>', `port of the relay on 127.0.0.1 (default ${DEFAULT_INSPECT_PORT})`).argParser(integer(1, 65535)))
    .addOption(new Option('--speed <factor>', 'replay at the recorded pace times this; 0 = all at once (default 0)').argParser(speedFactor))
    .action(async (trace: string, opts: { port?: number; speed?: number }) => {
      const { replayTrace } = await import('../inspect/replay.js');
      await replayTrace(trace, { port: opts.port ?? DEFAULT_INSPECT_PORT, speed: opts.speed ?? 0, say: (line) => process.stderr.write(`raymond: ${line}\n`) });
      result.exitCode = EXIT.completed;
    });
  const serve = program
    .command('serve')
    .description('serve the workflows of --root folders over HTTP: start runs, follow their events, answer their asks')
    .option('--root <dir>', 'a folder of workflows to serve (repeatable; config [raymond.serve] root)', (v: string, acc: string[] = []) => [...acc, v])
    .addOption(new Option('--port <port>', 'port to listen on (default 8080; 0: any free port)').argParser(integer(0, 65535)))
    .option('--host <host>', 'address to listen on (default 127.0.0.1; any other needs a token)')
    .option('--launch <id>', 'start a run of this workflow once the server is up (repeatable)', (v: string, acc: string[] = []) => [...acc, v])
    .option('--workdir <dir>', "runs' default directory; a run's working_directory must be inside it")
    .option('--clean', 'move the unfinished runs of the pool to .raymond/serve-state/abandoned/<time>/ instead of resuming them')
    .option('--token <token>', 'the token requests must carry (Authorization: Bearer, or /login); "generate" makes one and prints it once; default $RAYMOND_SERVE_TOKEN')
    .addOption(new Option('--budget <usd>', 'budget of runs whose request and manifest give none (default: the config\'s, else 10)').argParser(money))
    .option('--dangerously-skip-permissions', "let the runs' Claude Code turns run any tool without asking (trusted workflows only)")
    .option('--claude-bin <path>', 'the Claude Code executable (default: claude on PATH)')
    .action(async (opts: import('./serve-command.js').ServeFlags) => {
      const { serveCommand } = await import('./serve-command.js');
      result.exitCode = await serveCommand(opts, packageVersion());
    });
  serve
    .command('list')
    .description('list the runs of the serve pool (.raymond/serve-state/), one id per line; no server needed')
    .option('--json', 'the ids and statuses as JSON')
    .action(async (opts: { json?: boolean }) => {
      result.jsonError = opts.json ? jsonError : null;
      const { serveList } = await import('./serve-command.js');
      process.stdout.write(`${await serveList(!!opts.json)}\n`);
      result.exitCode = EXIT.completed;
    });
  usageErrors(serve.commands[0]!, 'raymond serve list');
  program
    .command('worker')
    .description("take steps of queued runs (--queue) and run them on this machine, until Ctrl-C")
    .requiredOption('--queue <url>', 'the Redis the runs queue their steps in: redis://[user:password@]host:port[/db] or rediss://')
    .addOption(new Option('--concurrency <n>', 'most steps at once (default: one per 300 MB of free memory, as a local run)').argParser(integer(1)))
    .option('--name <name>', 'name shown by raymond workers (default: host-pid)')
    .option('--workdir <dir>', "this machine's checkout of the project: the run's project folder maps onto it (default: the current folder)")
    .option('--queue-secret-file <file>', 'the file holding the shared secret (default: $RAYMOND_QUEUE_SECRET)')
    .option('--claude-bin <path>', 'the Claude Code executable (default: claude on PATH)')
    .action(async (opts: import('./worker-command.js').WorkerFlags) => {
      const { workerCommand } = await import('./worker-command.js');
      result.exitCode = await workerCommand(opts);
    });
  program
    .command('workers')
    .description('list the workers of a queue with their load, and its jobs')
    .requiredOption('--queue <url>', 'the Redis of the queue')
    .option('--json', 'machine-readable output')
    .action(async (opts: { queue: string; json?: boolean }) => {
      result.jsonError = opts.json ? jsonError : null;
      const { workersCommand } = await import('./worker-command.js');
      process.stdout.write(`${await workersCommand(opts)}\n`);
      result.exitCode = EXIT.completed;
    });
  // `raymond help lint`: commander offers a help command only to a program without an action of its own.
  program
    .command('help')
    .description('show the help of raymond, or of one of its commands')
    .argument('[command]', 'worktrees, merge, lint, diagram, convert, replay, serve, worker or workers')
    .action((name: string | undefined) => {
      const command = name === undefined ? program : program.commands.find((c) => c.name() === name);
      if (!command) usage(`unknown command "${name}"`);
      command.outputHelp();
      result.exitCode = EXIT.completed;
    });
  for (const command of program.commands) usageErrors(command, `raymond ${command.name()}`);
  return program;
}
