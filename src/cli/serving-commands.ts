import { Option, type Command } from 'commander';
import { addMachineOptions, integer, money } from './options.js';
import { EXIT } from './exit-codes.js';
import { jsonError, type CliResult } from './dispatch.js';
import { DEFAULT_BUDGET_USD } from '../settings/run-setting-defaults.js';

/** The options of the runs a server starts, the same for `serve` and `mcp` (`what` starts a run: a request, a call). */
function runOptions(command: Command, what: string): Command {
  return addMachineOptions(command)
    .addOption(
      new Option(
        '--budget <usd>',
        `budget of runs whose ${what} and manifest give none (default: the config's, else ${DEFAULT_BUDGET_USD})`,
      ).argParser(money),
    )
    .option(
      '--dangerously-skip-permissions',
      "let the runs' agent CLIs run any tool without asking (trusted workflows only)",
    );
}

/**
 * Adds the "Serving and many machines" commands: `serve` (and `serve list`),
 * `mcp`, `worker` and `workers`. Their modules load only when one runs, so a local run
 * never loads the server or the queue. Returns `serve`, whose `list` subcommand
 * the caller gives Raymond's usage errors like every other command.
 */
export function addServingCommands(program: Command, result: CliResult, version: string): Command {
  program.commandsGroup('Serving and many machines:');
  const serve = program
    .command('serve')
    .description(
      'serve the workflows of --root folders over HTTP: start runs, follow their events, answer their asks',
    )
    .option(
      '--root <dir>',
      'a folder of workflows to serve (repeatable; config [raymond.serve] root)',
      (v: string, acc: string[] = []) => [...acc, v],
    )
    .addOption(
      new Option('--port <port>', 'port to listen on (default 8080; 0: any free port)').argParser(
        integer(0, 65535),
      ),
    )
    .option('--host <host>', 'address to listen on (default 127.0.0.1; any other needs a token)')
    .option(
      '--launch <id>',
      'start a run of this workflow once the server is up (repeatable)',
      (v: string, acc: string[] = []) => [...acc, v],
    )
    .option(
      '--workdir <dir>',
      "runs' default directory; a run's working_directory must be inside it",
    )
    .option(
      '--clean',
      'move the unfinished runs of the pool to .raymond/serve-state/abandoned/<time>/ instead of resuming them',
    )
    .option(
      '--token <token>',
      'the token requests must carry (Authorization: Bearer, or /login); "generate" makes one and prints it once; default $RAYMOND_SERVE_TOKEN',
    )
    .addOption(
      new Option(
        '--wait <seconds>',
        'longest a tool call of /mcp waits for its run before returning the run id (default 50; config [raymond.serve] mcp_wait)',
      ).argParser(integer(0)),
    );
  runOptions(serve, 'request').action(async (opts: import('./serve-command.js').ServeFlags) => {
    const { serveCommand } = await import('./serve-command.js');
    result.exitCode = await serveCommand(opts, version);
  });
  serve
    .command('list')
    .description(
      'list the runs of the serve pool (.raymond/serve-state/), one id per line; no server needed',
    )
    .option('--json', 'the ids and statuses as JSON')
    .action(async (opts: { json?: boolean }) => {
      result.jsonError = opts.json ? jsonError : null;
      const { serveList } = await import('./serve-command.js');
      process.stdout.write(`${await serveList(!!opts.json)}\n`);
      result.exitCode = EXIT.completed;
    });
  const mcp = program
    .command('mcp')
    .description(
      'serve the workflows of --root folders as the tools of an MCP server on stdin/stdout (for Claude Code and other agents)',
    )
    .option(
      '--root <dir>',
      'a folder of workflows to offer as tools (repeatable; config [raymond.serve] root)',
      (v: string, acc: string[] = []) => [...acc, v],
    )
    .option(
      '--workdir <dir>',
      "runs' default directory; a call's working_directory must be inside it",
    )
    .addOption(
      new Option(
        '--wait <seconds>',
        'longest a tool call waits for its run before returning the run id (default 50; config [raymond.serve] mcp_wait)',
      ).argParser(integer(0)),
    )
    .option(
      '--clean',
      'move the unfinished runs of .raymond/mcp-state/ aside instead of resuming them',
    );
  runOptions(mcp, 'call').action(async (opts: import('./mcp-command.js').McpFlags) => {
    const { mcpCommand } = await import('./mcp-command.js');
    result.exitCode = await mcpCommand(opts, version);
  });
  addMachineOptions(program.command('worker'))
    .description('take steps of queued runs (--queue) and run them on this machine, until Ctrl-C')
    .requiredOption(
      '--queue <url>',
      'the Redis the runs queue their steps in: redis://[user:password@]host:port[/db] or rediss://',
    )
    .addOption(
      new Option(
        '--concurrency <n>',
        'most steps at once (default: one per core, at least 2, as a local run, and at most one per 300 MB of free memory: each step keeps a core busy, and a Claude Code process takes about 230 MB)',
      ).argParser(integer(1)),
    )
    .option('--name <name>', 'name shown by raymond workers (default: host-pid)')
    .option(
      '--workdir <dir>',
      "this machine's checkout of the project: the run's project folder maps onto it (default: the current folder)",
    )
    .option(
      '--queue-secret-file <file>',
      'the file holding the shared secret (default: $RAYMOND_QUEUE_SECRET)',
    )

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
  return serve;
}
