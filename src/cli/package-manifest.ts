import { join } from 'node:path';
import { RaymondError } from '../errors.js';
import type { RunSettings } from '../settings/run-settings.js';
import { MANIFEST } from '../scope/skill-package.js';
import { readFolderManifest } from '../scope/folder-manifest.js';
import { givenFlags } from '../settings/setting-values.js';
import type { CliFlags, RunConfig } from './flag-settings.js';

/**
 * A new run of a skill package from the command line keeps its manifest's
 * promises as `raymond serve` does: an input it requires is asked for before
 * anything runs (one line, exit 64) instead of a state failing on an empty
 * `$RAYMOND_INPUT`, an input it refuses is refused, and its `default_budget`
 * is the run's budget unless `--budget` or the config file set one.
 */
export async function applyPackageManifest(
  path: string,
  cli: CliFlags,
  config: RunConfig,
  settings: RunSettings,
): Promise<RunSettings> {
  const entry = await readFolderManifest(path);
  if (!entry) return settings;
  const file = join(path, MANIFEST);
  const what = [entry.input.label, entry.input.description].filter((t) => t !== '').join(': ');
  if (entry.input.mode === 'required' && cli.input === undefined)
    throw new RaymondError(
      'ERR_USAGE',
      `this workflow needs an input${what ? ` (${what})` : ''}: give it with --input TEXT`,
      { file },
    );
  if (entry.input.mode === 'none' && cli.input !== undefined)
    throw new RaymondError(
      'ERR_USAGE',
      'this workflow takes no input (input.mode: none): leave out --input',
      {
        file,
      },
    );
  const budgetGiven = givenFlags(cli).budget !== undefined || config.budget !== undefined;
  return budgetGiven || entry.default_budget <= 0
    ? settings
    : { ...settings, budgetUsd: entry.default_budget };
}
