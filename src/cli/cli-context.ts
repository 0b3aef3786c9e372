import { join, resolve } from 'node:path';
import { projectRaymondDir } from '../raymond-folder.js';
import { findConfigFile, readConfig } from '../config/config-file.js';
import { dirname } from 'node:path';
import type { CliFlags, RunConfig } from './flag-settings.js';

/** The project's state folder, found as `ray` finds `.raymond` (raymond-folder.ts). */
export function defaultStateDir(): string {
  return join(projectRaymondDir(process.cwd()), 'state');
}

/** The config file that applies here, if any; its warnings go to stderr. */
function loadConfig(cwd: string): RunConfig {
  const path = findConfigFile(cwd);
  if (!path) return {};
  const { values, queue, prices, warnings } = readConfig(path);
  for (const w of warnings) process.stderr.write(`raymond: warning: ${path}: ${w}\n`);
  // As [raymond.serve]'s folders: relative to the project folder, the one holding .raymond.
  return {
    ...values,
    prices,
    queue:
      queue.secret_file === undefined
        ? queue
        : { ...queue, secret_file: resolve(dirname(dirname(path)), queue.secret_file) },
  };
}

/**
 * What a run command works with, resolved once from the flags and the
 * config file and never changed after: the command line as commander read
 * it, the config, the state folder and how the output is shown.
 */
export interface CliContext {
  /** The workflow given, if any (a resume names its run instead). */
  readonly path: string | undefined;
  readonly flags: Readonly<CliFlags>;
  readonly config: RunConfig;
  /** The state folder, absolute. */
  readonly stateDir: string;
  /** `--state-dir` as given, which a resume hint repeats; undefined when not given. */
  readonly stateDirGiven: string | undefined;
  readonly verbose: boolean;
  readonly quiet: boolean;
  readonly json: boolean;
}

/** Resolves the context of `raymond PATH` or `raymond --resume ID` (reading the config file). */
export function runContext(path: string | undefined, flags: CliFlags): CliContext {
  const config = loadConfig(process.cwd());
  return {
    path,
    flags,
    config,
    stateDir: resolve(flags.stateDir ?? defaultStateDir()),
    stateDirGiven: flags.stateDir,
    verbose: (flags.verbose as boolean | undefined) ?? config.verbose ?? false,
    quiet: !!flags.quiet,
    json: !!flags.json,
  };
}
