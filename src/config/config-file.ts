import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Type as T, type Static, type TSchema } from '@sinclair/typebox';
import { parse } from 'smol-toml';
import type { PriceOverride } from '../agents/agent-backend.js';
import { RaymondError, errorMessage } from '../errors.js';
import { readPrices } from './config-prices.js';
import { ignoreRaymondFolder, projectRaymondDir } from '../raymond-folder.js';
import { checked, mustBe, type Checked } from '../schema-problem.js';
import { SettingProblem } from '../setting.js';
import {
  settingEntries,
  settingOf,
  type ConfigValues,
  type QueueConfigValues,
} from '../settings/setting-values.js';

export type { ConfigValues, QueueConfigValues } from '../settings/setting-values.js';

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

const folder = (must: string) => T.String({ minLength: 1, must });
const list = (must: string) => T.Array(T.String({ minLength: 1 }), { must });
const atLeastOne = (must: string) => T.Integer({ minimum: 1, must });
/**
 * `[raymond.serve]`: the defaults of `raymond serve` (its flags beat them),
 * one TypeBox schema per key; `must` is the line a wrong value is refused
 * with. (`[raymond]` and `[raymond.queue]` are the settings table's: their
 * keys and checks come from it.)
 */
const SERVE_SCHEMAS = {
  /** Folders scanned for workflows (`--root`), relative to the project folder (`ray`'s name). */
  roots: list('a list of folders'),
  port: T.Integer({ minimum: 1, maximum: 65535, must: 'a port number, 1 to 65535' }),
  host: folder('a host name or address'),
  /** Runs' default directory, and the folder `working_directory` must stay in (`--workdir`), relative to the project folder. */
  workdir: folder('a folder'),
  /** Workflow ids started once the server is up (`--launch`). */
  launch: list('a list of workflow ids'),
  /** Upload caps of asks with files: bytes per file, bytes per answer, files per answer. */
  upload_max_size: atLeastOne('a number of bytes, 1 or more'),
  upload_max_total_size: atLeastOne('a number of bytes, 1 or more'),
  upload_max_count: atLeastOne('a whole number, 1 or more'),
  /** Seconds a request's headers and body may take to arrive in full (a body that trickles in is cut off). */
  request_timeout: atLeastOne('a number of seconds, 1 or more'),
  /** Seconds an MCP tool call waits for its run before it returns the run id (`--wait`, `/mcp` and `raymond mcp`). */
  mcp_wait: T.Integer({ minimum: 0, must: 'a number of seconds, 0 or more' }),
};
/** `[raymond.serve]` as checked; its JSON Schema as well. */
export const SERVE_CONFIG = T.Partial(T.Object(SERVE_SCHEMAS));
/** `[raymond.serve]`'s values, typed by their schema. */
export type ServeConfigValues = Static<typeof SERVE_CONFIG>;
const SERVE_KEYS = new Map<string, Checked<TSchema>>(
  Object.entries(SERVE_SCHEMAS).map(([key, schema]) => [key, checked(schema)]),
);

/** What a config file gave: its values, `[raymond.serve]`'s and `[raymond.queue]`'s, and lines to show about keys it ignored. */
export interface ConfigFile {
  values: ConfigValues;
  serve: ServeConfigValues;
  queue: QueueConfigValues;
  /** `[raymond.prices]`: USD per million tokens by model, over the backends' own tables. */
  prices: Record<string, PriceOverride>;
  warnings: string[];
  /**
   * Keys of `[raymond.serve]` Raymond does not know: shown by `raymond serve`
   * only, since `ray serve` has keys of its own that a run has no business
   * warning about.
   */
  serveWarnings: string[];
}

/** How a sub-table's keys are checked: the value, or the line saying what is wrong with it. */
type KeyCheck = (
  key: string,
  value: unknown,
) => { ok: true; value: unknown } | { ok: false; problem: string } | undefined;

/** A setting of the table checks a value: its own check, its refusal as the line shown. */
function tableCheck(
  setting: { check: (v: unknown) => unknown } | undefined,
  value: unknown,
): ReturnType<KeyCheck> {
  if (!setting) return undefined;
  try {
    setting.check(value);
    return { ok: true, value };
  } catch (err) {
    if (err instanceof SettingProblem) return { ok: false, problem: err.message };
    throw err;
  }
}

/** `[raymond.serve]`'s keys, checked as the settings are. */
function serveCheck(key: string, value: unknown): ReturnType<KeyCheck> {
  const spec = SERVE_KEYS.get(key);
  if (!spec) return undefined;
  return spec.check(value)
    ? { ok: true, value }
    : { ok: false, problem: `expected ${mustBe(spec.schema)}` };
}

/** The keys of `[raymond.queue]` in the settings table. */
const QUEUE_KEYS = settingEntries().flatMap(([key]) =>
  key.startsWith('queue.') ? [key.slice('queue.'.length)] : [],
);

/** Checks a table's keys: a wrong value is an error, an unknown key a warning. */
function readKeys(
  prefix: string,
  known: readonly string[],
  check: KeyCheck,
  table: Record<string, unknown>,
  path: string,
  warnings: string[],
  skip: readonly string[] = [],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(table)) {
    if (skip.includes(key)) continue;
    // Own keys only: `toString` or `__proto__` in the file are unknown keys, not Object's.
    const checked = check(key, value);
    if (!checked) {
      warnings.push(`unknown key ${prefix}${keyName(key)}, ignored (known: ${known.join(', ')})`);
      continue;
    }
    if (!checked.ok)
      throw new RaymondError(
        'ERR_CONFIG',
        `${prefix}${key} = ${shown(value)}: ${checked.problem}`,
        { file: path },
      );
    out[key] = value;
  }
  return out;
}

/** A sub-table (`[raymond.serve]`, `[raymond.queue]`), checked as the rest. */
function readSubTable<T>(
  name: string,
  known: readonly string[],
  check: KeyCheck,
  table: unknown,
  path: string,
  warnings: string[],
): T {
  if (table === undefined) return {} as T;
  if (!isTable(table))
    throw new RaymondError(
      'ERR_CONFIG',
      `raymond.${name} = ${shown(table)}: expected the table [raymond.${name}]`,
      { file: path },
    );
  return readKeys(`raymond.${name}.`, known, check, table, path, warnings) as T;
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
    if (key !== 'raymond')
      warnings.push(
        `unknown section or key ${JSON.stringify(key)}, ignored (Raymond's options go under [raymond])`,
      );
  }
  const table = data.raymond ?? {};
  if (!isTable(table))
    throw new RaymondError(
      'ERR_CONFIG',
      `raymond = ${shown(table)}: expected the table [raymond], with the options under it`,
      { file: path },
    );
  const serveWarnings: string[] = [];
  const serve = readSubTable<ServeConfigValues>(
    'serve',
    [...SERVE_KEYS.keys()],
    serveCheck,
    table.serve,
    path,
    serveWarnings,
  );
  const queue = readSubTable<QueueConfigValues>(
    'queue',
    QUEUE_KEYS,
    (key, value) => tableCheck(settingOf(`queue.${key}`), value),
    table.queue,
    path,
    warnings,
  );
  const top = settingEntries().flatMap(([key]) => (key.includes('.') ? [] : [key]));
  const values = readKeys(
    'raymond.',
    top,
    (key, value) => tableCheck(key.includes('.') ? undefined : settingOf(key), value),
    table,
    path,
    warnings,
    ['serve', 'queue', 'prices'],
  );
  const prices = readPrices(table.prices, path);
  return { values: values, serve, queue, prices, warnings, serveWarnings };
}

/** The template `raymond --init-config` writes: every key of the settings table, commented out and explained, with its default. */
export function configTemplate(): string {
  const lines = [
    '# Raymond configuration. Command-line flags beat these values, which beat the defaults.',
    '# Uncomment a line to use it.',
    '',
    '[raymond]',
  ];
  const entry = (key: string, s: { doc: string; example: string; defaultText: string }) => [
    '',
    `# ${s.doc}${s.defaultText ? ` Default: ${s.defaultText}.` : ''}`,
    `# ${key} = ${s.example}`,
  ];
  for (const [key, s] of settingEntries()) if (!key.includes('.')) lines.push(...entry(key, s));
  lines.push('', '# [raymond.queue]');
  for (const [key, s] of settingEntries())
    if (key.startsWith('queue.')) lines.push(...entry(key.slice('queue.'.length), s));
  lines.push(
    '',
    "# What a model costs, in USD per million tokens, over the backends' own tables: what a",
    '# Codex turn is charged (Codex reports tokens only), and what forecasts guess. One table per model.',
    '# [raymond.prices."gpt-5"]',
    '# input = 1.25',
    '# cached_input = 0.125',
    '# output = 10',
  );
  return `${lines.join('\n')}\n`;
}

/** Writes the template to `.raymond/config.toml` under `dir`, never over an existing file. */
export async function initConfig(dir: string): Promise<string> {
  const path = join(projectRaymondDir(dir), 'config.toml');
  await mkdir(dirname(path), { recursive: true });
  await ignoreRaymondFolder(dirname(path));
  await writeFile(path, configTemplate(), { flag: 'wx' }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EEXIST')
      throw new RaymondError(
        'ERR_CONFIG',
        'already exists; edit it, or remove it first to get a fresh template',
        { file: path },
      );
    throw new RaymondError('ERR_CONFIG', `cannot write: ${err.code ?? err.message}`, {
      file: path,
    });
  });
  return path;
}
