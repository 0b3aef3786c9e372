import { existsSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * What `.raymond/.gitignore` says: state files, journals, locks, debug logs
 * and worktrees are a machine's, not the project's; the config file is meant
 * to be shared and committed.
 */
export const RAYMOND_GITIGNORE =
  '# Written by Raymond: run data stays out of git; the config file may be committed.\n*\n!config.toml\n';

/** Whether `path` is a directory (not a file that happens to be called so). */
function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Folders the search never goes up into, from `RAYMOND_CEILING_DIRECTORIES`
 * (absolute paths joined by `:`, as git's `GIT_CEILING_DIRECTORIES`): a
 * shared temporary folder where someone once ran Raymond by hand must not
 * become the project of every run below it.
 */
function ceilings(env: NodeJS.ProcessEnv): Set<string> {
  const list = env.RAYMOND_CEILING_DIRECTORIES ?? '';
  return new Set(
    list
      .split(':')
      .filter((d) => d.startsWith('/'))
      .map((d) => resolve(d)),
  );
}

/**
 * The project's `.raymond` folder, as `ray` finds it: the nearest one from
 * `cwd` upward, looking no higher than the project's root (the folder that
 * holds `.git`) nor into a ceiling folder; without one, where it is to be
 * made: at that root, or at `cwd` outside a repository. So a run started in
 * a subfolder of a project lands in, and shows in `--list` from, the
 * project's `.raymond`.
 */
export function projectRaymondDir(cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const start = resolve(cwd);
  const stop = ceilings(env);
  for (let dir = start; ; dir = dirname(dir)) {
    if (isDirectory(join(dir, '.raymond'))) return join(dir, '.raymond');
    if (existsSync(join(dir, '.git'))) return join(dir, '.raymond');
    if (dirname(dir) === dir || stop.has(dirname(dir))) return join(start, '.raymond');
  }
}

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
