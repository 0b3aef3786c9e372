import { writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';

/**
 * What `.raymond/.gitignore` says: state files, journals, locks, debug logs
 * and worktrees are a machine's, not the project's; the config file is meant
 * to be shared and committed.
 */
export const RAYMOND_GITIGNORE = '# Written by Raymond: run data stays out of git; the config file may be committed.\n*\n!config.toml\n';

/**
 * Gives a `.raymond` folder Raymond made (or writes into) its `.gitignore`,
 * so it never shows up as untracked in the user's repository. A folder of
 * another name (`--state-dir runs/state`) is the user's: left alone. An
 * existing `.gitignore` is kept as the user left it.
 */
export async function ignoreRaymondFolder(dir: string): Promise<void> {
  if (basename(dir) !== '.raymond') return;
  await writeFile(join(dir, '.gitignore'), RAYMOND_GITIGNORE, { flag: 'wx' }).catch(() => {
    // Already there (kept), or the folder is not writable, which the state file's own write reports.
  });
}
