import { initConfig } from '../config/config-file.js';
import { RaymondError, aliasesOf } from '../errors.js';
import { defaultStateDir, runContext } from './cli-context.js';
import { EXIT } from './exit-codes.js';
import { runCommand } from './run-command.js';
import { jsonSummary } from './run-summary.js';
import { listRuns, runStatus } from './runs-command.js';
import type { CliFlags } from './flag-settings.js';
import { commandName } from './program-name.js';

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
  const aliases = aliasesOf(code);
  return JSON.stringify({ error, code, ...(aliases.length > 0 ? { aliases } : {}) });
}

/** A usage mistake: one line saying where help is, exit 64. */
export function usage(message: string): never {
  throw new RaymondError('ERR_USAGE', `${message} (run ${commandName()} --help for usage)`);
}

/** The root command: refuses flags that do not go together, then runs the one mode they ask for; returns the exit code. */
export async function dispatch(
  path: string | undefined,
  flags: CliFlags,
  result: CliResult,
): Promise<number> {
  const running = !flags.list && flags.status === undefined && !flags.recover && !flags.initConfig;
  // A run that fails before it starts still answers with its summary's shape.
  result.jsonError = !flags.json
    ? null
    : running
      ? (error) => JSON.stringify(jsonSummary({ status: 'failed', error }))
      : jsonError;
  // An empty id is still the mode it names, and is refused as an id.
  const modes = [
    flags.resume !== undefined && '--resume',
    flags.list && '--list',
    flags.status !== undefined && '--status',
    flags.recover && '--recover',
    flags.initConfig && '--init-config',
  ].filter(Boolean);
  if (modes.length > 1) usage(`${modes.join(' and ')} cannot be combined`);
  if (modes.length === 1 && path) usage(`${modes[0]} takes no workflow path`);
  if (flags.continueSession && (modes.length > 0 || !path))
    usage('--continue-session starts a new run: give a workflow, not --resume');
  if (flags.answer && flags.resume === undefined)
    usage('--answer answers a pending ask of a run: give it with --resume ID');
  const print = (text: string) => process.stdout.write(`${text}\n`);
  const stateDir = flags.stateDir ?? defaultStateDir();
  if (flags.initConfig) {
    print(`wrote ${await initConfig(process.cwd())}`);
    return EXIT.completed;
  }
  if (flags.list || flags.recover) {
    print(await listRuns(stateDir, { json: !!flags.json, recover: !!flags.recover }));
    return EXIT.completed;
  }
  if (flags.status !== undefined) {
    print(await runStatus(stateDir, flags.status, !!flags.json));
    return EXIT.completed;
  }
  if (flags.resume === undefined && !path)
    usage(
      'give a workflow (a state file, a folder, a .zip or an https URL of a hashed .zip), or --resume ID',
    );
  const inspecting = flags.inspect !== undefined || flags.trace !== undefined;
  if (!inspecting && (flags.inspectFull || flags.inspectAgents !== undefined))
    usage('--inspect-full and --inspect-agents need --inspect or --trace');
  if (flags.inspectWait && flags.inspect === undefined) usage('--inspect-wait needs --inspect');
  return runCommand(runContext(path, flags));
}
