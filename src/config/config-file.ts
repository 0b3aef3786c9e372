import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parse } from 'smol-toml';
import { EFFORTS, isRunModel, MODEL_CHOICES, PERMISSION_MODES } from '../claude/claude-argv.js';
import { PI_THINKING } from '../pi/pi-argv.js';
import { ON_DENIAL_MODES, type OnDenial } from '../language/grant.js';

/** Every effort a run-wide setting may give: Claude Code's and pi's; the workflow's backend decides when it starts. */
const RUN_EFFORTS: readonly string[] = [...new Set<string>([...EFFORTS, ...PI_THINKING])];
import { RaymondError, errorMessage } from '../errors.js';
import { ignoreRaymondFolder, projectRaymondDir } from '../raymond-folder.js';
import { ON_ASK_MODES, WORKTREE_MODES, type OnAskMode, type WorktreeMode } from '../../machines/types.js';
import { taskFolderPatternProblem } from '../task-folder-pattern.js';
import { isConfigNotify, isConfigNotifyUrl, notifyCommandsProblem, notifyUrlsProblem, type ConfigNotify, type ConfigNotifyUrl } from '../notify/hook-spec.js';

/** Run options a config file may set (the same names as the flags, in snake case). */
export interface ConfigValues {
  budget?: number;
  model?: string;
  effort?: string;
  timeout?: number;
  max_parallel?: number;
  dangerously_skip_permissions?: boolean;
  no_debug?: boolean;
  no_wait?: boolean;
  /** Hook commands notified of the run's events (as --notify): a command line, an argv array, or a list of those. */
  notify?: ConfigNotify;
  /** Hook URLs the run's events are POSTed to (as --notify-url). */
  notify_url?: ConfigNotifyUrl;
  no_warm?: boolean;
  /** `ray`'s `verbose`: as --verbose. */
  verbose?: boolean;
  permission_mode?: string;
  disallowed_tools?: string[];
  /** The only built-in tools of every markdown state whose workflow and frontmatter name none. */
  tools?: string[];
  /** Tools or patterns pre-approved in every markdown state (a state's own list replaces it). */
  allowed_tools?: string[];
  /** What a denied tool call does: warn (the default) or fail the step. */
  on_denial?: OnDenial;
  claude_bin?: string;
  worktrees?: WorktreeMode;
  task_folder_pattern?: string;
  /** A label for runs started here (as --name). */
  name?: string;
  /** What an `<ask>` does (as --on-ask). */
  on_ask?: OnAskMode;
}

/** Longest `--name` label: it has to fit in a terminal title. */
const MAX_NAME_LENGTH = 100;

/** What is wrong with a run's `--name` label, if anything: it is shown on one line of a terminal. */
export function runNameProblem(name: string): string | undefined {
  if (name.trim() === '') return 'is empty';
  if (name.length > MAX_NAME_LENGTH) return `is ${name.length} characters long; at most ${MAX_NAME_LENGTH}`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return 'holds a control character (a newline, a tab, an escape...)';
  return undefined;
}

type Check = (v: unknown) => boolean;
/** Says what is wrong with a value of the right type (the one its check let through), for keys whose values have rules of their own. */
type Problem = (v: never) => string | undefined;
const KEYS: Record<keyof ConfigValues, { check: Check; expected: string; help: string; example: string; problem?: Problem }> = {
  budget: { check: (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0, expected: 'a number of USD, 0 or more', help: 'Stop starting steps once the run cost more than this many USD (0 = unlimited). Default 10.', example: '10.0' },
  model: { check: (v) => typeof v === 'string' && isRunModel(v), expected: `${MODEL_CHOICES}, or a pi model (provider/id)`, help: 'Model for markdown states whose frontmatter names none (a pi workflow\'s: provider/id). Default: the backend\'s own.', example: '"sonnet"' },
  effort: { check: (v) => RUN_EFFORTS.includes(v as never), expected: `one of ${RUN_EFFORTS.map((m) => `"${m}"`).join(', ')}`, help: 'Effort for markdown states whose frontmatter names none (Claude Code: low, medium, high; pi: off, minimal, low, medium, high, xhigh).', example: '"medium"' },
  timeout: { check: (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0, expected: 'a number of seconds, 0 or more (0: never)', help: 'Kill a step that prints nothing for this many seconds (0: never, as in ray). Default 600.', example: '600' },
  max_parallel: { check: (v) => Number.isInteger(v) && (v as number) >= 1, expected: 'a whole number, 1 or more', help: 'Most steps running at once. Default: the number of cores, at least 2.', example: '4' },
  dangerously_skip_permissions: { check: (v) => typeof v === 'boolean', expected: 'true or false', help: 'Let Claude Code run any tool without asking. Trusted workflows only.', example: 'false' },
  no_debug: { check: (v) => typeof v === 'boolean', expected: 'true or false', help: 'Do not write debug logs under .raymond/debug/.', example: 'false' },
  no_wait: { check: (v) => typeof v === 'boolean', expected: 'true or false', help: 'When every agent hit a usage limit, end the run as paused instead of waiting for the reset.', example: 'false' },
  notify: { check: isConfigNotify, expected: 'a command line, an argv array of strings, or a list of those', problem: notifyCommandsProblem, help: 'Commands notified of the run\'s events (as --notify): run without a shell, the event as JSON on stdin and in RAYMOND_EVENT. A string is split into words as a shell would, with no expansion; ["prog", "arg"] is one argv; [["a"], "b c"] is two commands.', example: '["notify-send", "Raymond"]' },
  notify_url: { check: isConfigNotifyUrl, expected: 'an http(s) URL or a list of them', problem: notifyUrlsProblem, help: 'URLs the run\'s events are POSTed to as JSON (as --notify-url). Use https for anything off this machine: the JSON holds prompts and results.', example: '"https://example.com/hooks/raymond"' },
  worktrees: { check: (v) => WORKTREE_MODES.includes(v as never), expected: `one of ${WORKTREE_MODES.map((m) => `"${m}"`).join(', ')}`, help: 'How agents with worktree="..." get their folders: "keep-ignored" (a pool sized to --max-parallel; ignored files such as node_modules stay between agents), "clean" (the pool, ignored files removed too) or "off" (one folder per agent, kept until it ends).', example: '"keep-ignored"' },
  verbose: { check: (v) => typeof v === 'boolean', expected: 'true or false', help: 'More detail on stderr, with stack traces (as --verbose).', example: 'false' },
  no_warm: { check: (v) => typeof v === 'boolean', expected: 'true or false', help: "Start a new Claude Code process for every turn, instead of keeping an agent's process alive between its turns in one session.", example: 'false' },
  permission_mode: { check: (v) => PERMISSION_MODES.includes(v as never), expected: `one of ${PERMISSION_MODES.map((m) => `"${m}"`).join(', ')}`, help: 'Claude Code\'s permission mode when permissions are not skipped. Default "acceptEdits".', example: '"acceptEdits"' },
  disallowed_tools: { check: (v) => Array.isArray(v) && v.every((t) => typeof t === 'string' && t.trim() !== ''), expected: 'a list of tool names', help: 'Tools no Claude Code turn may call (as ray). Default: the interactive ones, which hang in -p mode. [] allows every tool.', example: '["EnterPlanMode", "ExitPlanMode", "AskUserQuestion", "NotebookEdit"]' },
  tools: { check: (v) => Array.isArray(v) && v.every((t) => typeof t === 'string' && t.trim() !== ''), expected: 'a list of tool names', help: 'The only built-in tools a markdown state has, unless its workflow or frontmatter says (Claude Code: --tools; pi: --tools). [] gives none.', example: '["Read", "Grep", "Glob"]' },
  allowed_tools: { check: (v) => Array.isArray(v) && v.every((t) => typeof t === 'string' && t.trim() !== ''), expected: 'a list of tools or patterns', help: 'Tools or patterns a markdown state may use without asking, unless its workflow or frontmatter says (Claude Code: --allowedTools).', example: '["Bash(git status:*)"]' },
  on_denial: { check: (v) => ON_DENIAL_MODES.includes(v as never), expected: `one of ${ON_DENIAL_MODES.map((m) => `"${m}"`).join(', ')}`, help: 'What a tool call the state may not make does: "warn" shows it and counts it, "fail" fails the step (and so the agent). Default "warn".', example: '"warn"' },
  task_folder_pattern: { check: (v) => typeof v === 'string', expected: 'a path pattern', problem: taskFolderPatternProblem, help: 'Where each agent\'s task folder goes ({{task_folder}}, $RAYMOND_TASK_FOLDER), relative to the project root; {workflow_id} and {agent_id} are filled in.', example: '".raymond/tasks/{workflow_id}/{agent_id}"' },
  claude_bin: { check: (v) => typeof v === 'string' && v !== '', expected: 'a path', help: 'The Claude Code executable. Default: claude on PATH.', example: '"/usr/local/bin/claude"' },
  on_ask: { check: (v) => ON_ASK_MODES.includes(v as never), expected: `one of ${ON_ASK_MODES.map((m) => `"${m}"`).join(', ')}`, help: 'What a state\'s <ask> does: "prompt" asks at the terminal while the other agents go on, "pause" ends the run with exit 2 once every live agent waits (answer with --resume ID --input TEXT), "reject" pauses an agent that asks. Default: "prompt" at a terminal, else "reject".', example: '"pause"' },
  name: { check: (v) => typeof v === 'string', expected: 'a label', problem: runNameProblem, help: 'A label for the runs started in this project (as --name): shown in the terminal title, --list and --status.', example: '"nightly refactor"' },
};

/** `config.toml` in the project's `.raymond` folder (raymond-folder.ts), if there is one. */
export function findConfigFile(cwd: string): string | undefined {
  const candidate = join(projectRaymondDir(cwd), 'config.toml');
  return existsSync(candidate) ? candidate : undefined;
}

/** A TOML table as parsed: a plain object (dates are objects too, arrays are not tables). */
function isTable(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** A key as written in TOML: bare when it can be, quoted otherwise (so a message stays one line). */
function keyName(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
}

/** A value as the user wrote it, near enough: `inf` is not JSON's `null`. */
function shown(v: unknown): string {
  if (typeof v === 'number') return String(v);
  if (v instanceof Date) return v.toISOString();
  return JSON.stringify(v);
}

/** `[raymond.serve]`: the defaults of `raymond serve` (its flags beat them). */
export interface ServeConfigValues {
  /** Folders scanned for workflows (`--root`), relative to the project folder (`ray`'s name). */
  roots?: string[];
  port?: number;
  host?: string;
  /** Runs' default directory, and the folder `working_directory` must stay in (`--workdir`), relative to the project folder. */
  workdir?: string;
  /** Workflow ids started once the server is up (`--launch`). */
  launch?: string[];
  /** Upload caps of asks with files: bytes per file, bytes per answer, files per answer. */
  upload_max_size?: number;
  upload_max_total_size?: number;
  upload_max_count?: number;
  /** Seconds a request's headers and body may take to arrive in full (a body that trickles in is cut off). */
  request_timeout?: number;
}

const stringList = (v: unknown) => Array.isArray(v) && v.every((t) => typeof t === 'string' && t !== '');
const positiveInteger = (v: unknown) => Number.isInteger(v) && (v as number) >= 1;
const SERVE_KEYS: Record<keyof ServeConfigValues, { check: Check; expected: string }> = {
  roots: { check: stringList, expected: 'a list of folders' },
  port: { check: (v) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 65535, expected: 'a port number, 1 to 65535' },
  host: { check: (v) => typeof v === 'string' && v !== '', expected: 'a host name or address' },
  workdir: { check: (v) => typeof v === 'string' && v !== '', expected: 'a folder' },
  launch: { check: stringList, expected: 'a list of workflow ids' },
  upload_max_size: { check: positiveInteger, expected: 'a number of bytes, 1 or more' },
  upload_max_total_size: { check: positiveInteger, expected: 'a number of bytes, 1 or more' },
  upload_max_count: { check: positiveInteger, expected: 'a whole number, 1 or more' },
  request_timeout: { check: positiveInteger, expected: 'a number of seconds, 1 or more' },
};

/** `[raymond.queue]`: where a run's steps go (`--queue`), and how. */
export interface QueueConfigValues {
  /** `redis://[user:password@]host:port[/db]` or `rediss://...`. */
  url?: string;
  /** A file holding the shared secret (else RAYMOND_QUEUE_SECRET). */
  secret_file?: string;
  /** Where workers push agents' worktree branches. Default "origin". */
  push_remote?: string;
}

const QUEUE_KEYS: Record<keyof QueueConfigValues, { check: Check; expected: string }> = {
  url: { check: (v) => typeof v === 'string' && /^rediss?:\/\//.test(v), expected: 'a redis:// or rediss:// URL' },
  secret_file: { check: (v) => typeof v === 'string' && v !== '', expected: 'a file' },
  push_remote: { check: (v) => typeof v === 'string' && v !== '', expected: 'a git remote name or URL' },
};

/** What a config file gave: its values, `[raymond.serve]`'s and `[raymond.queue]`'s, and lines to show about keys it ignored. */
export interface ConfigFile {
  values: ConfigValues;
  serve: ServeConfigValues;
  queue: QueueConfigValues;
  warnings: string[];
  /**
   * Keys of `[raymond.serve]` Raymond does not know: shown by `raymond serve`
   * only, since `ray serve` has keys of its own that a run has no business
   * warning about.
   */
  serveWarnings: string[];
}

/** Checks a sub-table (`[raymond.serve]`, `[raymond.queue]`) as the rest: a wrong value is an error, an unknown key a warning. */
function readSubTable<T>(name: string, keys: Record<string, { check: Check; expected: string }>, table: unknown, path: string, warnings: string[]): T {
  if (table === undefined) return {} as T;
  if (!isTable(table)) throw new RaymondError('ERR_CONFIG', `raymond.${name} = ${shown(table)}: expected the table [raymond.${name}]`, { file: path });
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(table)) {
    const spec = Object.hasOwn(keys, key) ? keys[key] : undefined;
    if (!spec) {
      warnings.push(`unknown key raymond.${name}.${keyName(key)}, ignored (known: ${Object.keys(keys).join(', ')})`);
      continue;
    }
    if (!spec.check(value)) throw new RaymondError('ERR_CONFIG', `raymond.${name}.${key} = ${shown(value)}: expected ${spec.expected}`, { file: path });
    out[key] = value;
  }
  return out as T;
}

/**
 * Reads and checks a config file; errors name the file, the key and what
 * was expected. A key neither Raymond nor `ray` knows is a warning, not a
 * refusal: a file may be shared by two tools, or by two versions of one.
 */
export function readConfig(path: string): ConfigFile {
  let data: Record<string, unknown>;
  try {
    data = parse(readFileSync(path, 'utf8'));
  } catch (err) {
    const first = errorMessage(err).split('\n')[0];
    throw new RaymondError('ERR_CONFIG', `not valid TOML: ${first}`, { file: path });
  }
  const warnings: string[] = [];
  for (const key of Object.keys(data)) {
    if (key !== 'raymond') warnings.push(`unknown section or key ${JSON.stringify(key)}, ignored (Raymond's options go under [raymond])`);
  }
  const table = data.raymond ?? {};
  if (!isTable(table)) throw new RaymondError('ERR_CONFIG', `raymond = ${shown(table)}: expected the table [raymond], with the options under it`, { file: path });
  const out: Record<string, unknown> = {};
  const serveWarnings: string[] = [];
  const serve = readSubTable<ServeConfigValues>('serve', SERVE_KEYS, table.serve, path, serveWarnings);
  const queue = readSubTable<QueueConfigValues>('queue', QUEUE_KEYS, table.queue, path, warnings);
  for (const [key, value] of Object.entries(table)) {
    if (key === 'serve' || key === 'queue') continue;
    // Own keys only: `toString` or `__proto__` in the file are unknown keys, not Object's.
    const spec = Object.hasOwn(KEYS, key) ? KEYS[key as keyof ConfigValues] : undefined;
    if (!spec) {
      warnings.push(`unknown key raymond.${keyName(key)}, ignored (known: ${Object.keys(KEYS).join(', ')})`);
      continue;
    }
    if (!spec.check(value)) throw new RaymondError('ERR_CONFIG', `raymond.${key} = ${shown(value)}: expected ${spec.expected}`, { file: path });
    const problem = spec.problem?.(value as never);
    if (problem !== undefined) throw new RaymondError('ERR_CONFIG', `raymond.${key} = ${shown(value)}: ${problem}`, { file: path });
    out[key] = value;
  }
  return { values: out, serve, queue, warnings, serveWarnings };
}

/** The template `raymond --init-config` writes: every key, commented out and explained. */
export function configTemplate(): string {
  const lines = ['# Raymond configuration. Command-line flags beat these values, which beat the defaults.', '# Uncomment a line to use it.', '', '[raymond]'];
  for (const [key, spec] of Object.entries(KEYS)) lines.push('', `# ${spec.help}`, `# ${key} = ${spec.example}`);
  return `${lines.join('\n')}\n`;
}

/** Writes the template to `.raymond/config.toml` under `dir`, never over an existing file. */
export async function initConfig(dir: string): Promise<string> {
  const path = join(projectRaymondDir(dir), 'config.toml');
  await mkdir(dirname(path), { recursive: true });
  await ignoreRaymondFolder(dirname(path));
  await writeFile(path, configTemplate(), { flag: 'wx' }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EEXIST') throw new RaymondError('ERR_CONFIG', 'already exists; edit it, or remove it first to get a fresh template', { file: path });
    throw new RaymondError('ERR_CONFIG', `cannot write: ${err.code ?? err.message}`, { file: path });
  });
  return path;
}
