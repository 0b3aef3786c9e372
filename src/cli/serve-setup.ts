import { stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { findConfigFile, readConfig, type ConfigFile } from '../config/config-file.js';
import { RaymondError } from '../errors.js';
import { createNotifier, type Notifier } from '../notify/notifier.js';
import { ignoreRaymondFolder, projectRaymondDir } from '../raymond-folder.js';
import { AskStaging } from '../serve/ask-staging.js';
import { RunPool } from '../serve/run-pool.js';
import type { ServeContext } from '../serve/serve-context.js';
import { serveNotifications } from '../serve/serve-notify.js';
import { WorkflowRegistry } from '../serve/workflow-registry.js';
import { newRunSettings, notifyHooks, type CliFlags } from './flag-settings.js';
import { machineFlags } from '../settings/setting-values.js';

/** What `raymond serve` and `raymond mcp` share of their flags. */
export interface ServingFlags {
  root?: string[];
  workdir?: string;
  clean?: boolean;
  dangerouslySkipPermissions?: boolean;
  budget?: number;
  /** The backends' machine settings (`--claude-bin`), by commander's names. */
  [machineFlag: string]: unknown;
}

/** A server's workflows, runs and settings, before it listens. */
export interface Serving {
  ctx: ServeContext;
  config: ConfigFile;
  /** The folder of the server's runs (`.raymond/<pool>/`). */
  poolDir: string;
  notifier: Notifier | undefined;
}

async function folder(path: string, what: string, command: string): Promise<string> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isDirectory())
    throw new RaymondError(
      'ERR_USAGE',
      `${what} ${path} is not a folder (run raymond ${command} --help for usage)`,
    );
  return path;
}

/**
 * Reads the config (its `[raymond.serve]` roots and workdir when the flags
 * give none), checks the folders, and makes the registry and the run pool
 * in `.raymond/<poolName>/` (`--clean` first moves its unfinished runs
 * aside). Nothing is scanned or resumed yet.
 */
export async function openServing(
  flags: ServingFlags,
  command: 'serve' | 'mcp',
  poolName: string,
  say: (line: string) => void,
): Promise<Serving> {
  const cwd = process.cwd();
  const configPath = findConfigFile(cwd);
  const config: ConfigFile = configPath
    ? readConfig(configPath)
    : { values: {}, serve: {}, queue: {}, prices: {}, warnings: [], serveWarnings: [] };
  for (const w of [...config.warnings, ...config.serveWarnings])
    process.stderr.write(`raymond: warning: ${configPath}: ${w}\n`);
  const raymondDir = projectRaymondDir(cwd);
  const fromConfig = (p: string) => resolve(dirname(raymondDir), p);
  const roots = flags.root?.map((r) => resolve(r)) ?? config.serve.roots?.map(fromConfig);
  if (!roots || roots.length === 0)
    throw new RaymondError(
      'ERR_USAGE',
      `give at least one --root DIR to serve workflows from (run raymond ${command} --help for usage)`,
    );
  for (const r of roots) await folder(r, '--root', command);
  const workdir =
    flags.workdir !== undefined
      ? resolve(flags.workdir)
      : config.serve.workdir !== undefined
        ? fromConfig(config.serve.workdir)
        : undefined;
  if (workdir !== undefined) await folder(workdir, '--workdir', command);

  const poolDir = join(raymondDir, poolName);
  await ignoreRaymondFolder(raymondDir).catch(() => {});
  if (flags.clean) {
    const moved = await RunPool.clean(poolDir);
    if (moved.length > 0)
      say(
        `--clean: moved ${moved.length} unfinished run(s) to ${join(poolDir, 'abandoned')}/: ${moved.join(', ')}`,
      );
  }
  const cliFlags: CliFlags = {
    ...machineFlags(flags),
    ...(flags.dangerouslySkipPermissions ? { dangerouslySkipPermissions: true } : {}),
    ...(flags.budget !== undefined ? { budget: flags.budget } : {}),
    onAsk: 'prompt',
  };
  const baseSettings = newRunSettings(cliFlags, { ...config.values, prices: config.prices });
  const staging = new AskStaging(say);
  // The config's notification hooks hear of the server's runs too.
  const hooks = notifyHooks({}, config.values);
  const notifier =
    hooks.commands.length + hooks.urls.length > 0
      ? createNotifier({ ...hooks, warn: (text) => say(`warning: ${text}`) })
      : undefined;
  const pool = new RunPool(
    poolDir,
    {
      debug: baseSettings.debug,
      backendSettings: baseSettings.backendSettings,
      grant: baseSettings.grant,
    },
    (run, ask) => staging.onAsk(run, ask),
    say,
    notifier && serveNotifications(notifier),
  );
  const ctx: ServeContext = {
    registry: new WorkflowRegistry(roots, (line) => say(`warning: ${line}`)),
    pool,
    staging,
    baseSettings,
    defaultBudgetUsd: baseSettings.budgetUsd,
    workdir,
    cwd,
    token: undefined,
    say,
    uploadCaps: {
      ...(config.serve.upload_max_size ? { perFile: config.serve.upload_max_size } : {}),
      ...(config.serve.upload_max_total_size ? { total: config.serve.upload_max_total_size } : {}),
      ...(config.serve.upload_max_count ? { count: config.serve.upload_max_count } : {}),
    },
  };
  return { ctx, config, poolDir, notifier };
}
