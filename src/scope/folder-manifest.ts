import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { RaymondError } from '../errors.js';
import { STATE_EXTENSIONS, extensionOf } from './extensions.js';
import { ENTRY_NAMES } from './scope.js';
import { MANIFEST, statesFolder } from './skill-package.js';
import { manifestEntry, parseMapping, readYaml, type WorkflowEntry } from './workflow-manifest.js';

function hasEntry(files: string[]): boolean {
  return files.some(
    (f) =>
      ENTRY_NAMES.includes(f.replace(/\.[^.]*$/, '')) &&
      STATE_EXTENSIONS.includes(extensionOf(f) ?? ''),
  );
}

/** Whether a path is a folder (false when it is missing). */
export async function isDir(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

/** The workflow of a folder: its manifest's (a skill package runs its `states/`), else one of its entry state; else undefined. */
export async function folderEntry(dir: string): Promise<WorkflowEntry | undefined> {
  const files = await readdir(dir);
  if (files.includes(MANIFEST)) {
    // A skill package keeps its states in `states/`; a plain folder with a manifest has them beside it.
    return manifestEntry(
      parseMapping(await readYaml(join(dir, MANIFEST))),
      basename(dir),
      await statesFolder(dir),
    );
  }
  return hasEntry(files) ? manifestEntry({}, basename(dir), dir) : undefined;
}

/**
 * The manifest of a skill package (or a folder with a `workflow.yaml`) as
 * serve reads it, for `raymond PATH` to honour the same keys; undefined for
 * a folder without one. A manifest `ray` would refuse is one line naming it.
 */
export async function readFolderManifest(dir: string): Promise<WorkflowEntry | undefined> {
  if (!(await isDir(dir)) || !existsSync(join(dir, MANIFEST))) return undefined;
  try {
    return await folderEntry(dir);
  } catch (err) {
    throw new RaymondError('ERR_YAML_INVALID', err instanceof Error ? err.message : String(err), {
      file: join(dir, MANIFEST),
    });
  }
}
