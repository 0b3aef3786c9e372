import { chmod, copyFile, mkdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { RaymondError } from '../errors.js';
import { isInside } from '../scope/contained-file.js';
import { walkWorkflowFolder } from '../scope/folder-walk.js';
import { openScope } from '../scope/scope.js';
import type { WorkflowEntry } from '../scope/workflow-manifest.js';
import { discoverWorkflows } from '../serve/workflow-registry.js';

/** A workflow copied into a plugin: where it came from and what discovery makes of the copy. */
export interface PluginWorkflow {
  /** The path as the user gave it. */
  source: string;
  entry: WorkflowEntry;
}

/** Folders a workflow's copy leaves out: its history, a run's files. */
const LEFT_OUT = new Set(['.git', '.raymond']);

type Kind = 'folder' | 'zip' | 'yaml';

/**
 * Copies a workflow folder's files as a run reads them: a link inside the
 * folder as what it points to, a link out of it refused (a plugin is
 * shared: `/etc/passwd` must never travel in one as content).
 */
async function copyFolder(abs: string, dest: string, source: string): Promise<void> {
  await mkdir(dest, { recursive: true });
  await walkWorkflowFolder(
    abs,
    LEFT_OUT,
    ({ rel, real }) => {
      throw new RaymondError(
        'ERR_USAGE',
        `"${rel}" is a symbolic link to ${real}, outside the workflow folder: a plugin holds only the workflow's own files (copy the file into the folder)`,
        { file: source },
      );
    },
    async ({ path, rel, info }) => {
      const to = join(dest, rel);
      await mkdir(dirname(to), { recursive: true });
      await copyFile(path, to);
      await chmod(to, info.mode & 0o777);
    },
  );
}

/**
 * What kind of workflow `path` is, checked the way a run opens it (an
 * entry state, a readable zip, a valid YAML workflow). A plugin holds
 * folders, zips and YAML files; a single state file is refused.
 */
async function kindOf(path: string): Promise<Kind> {
  const info = await stat(path).catch(() => {
    throw new RaymondError('ERR_SCOPE', 'no such file or directory', { file: path });
  });
  const kind: Kind | undefined = info.isDirectory()
    ? 'folder'
    : /\.zip$/i.test(path)
      ? 'zip'
      : /\.ya?ml$/i.test(path)
        ? 'yaml'
        : undefined;
  if (kind === undefined)
    throw new RaymondError(
      'ERR_SCOPE',
      'not a workflow a plugin can hold: give a workflow folder, a skill package, a .zip or a .yaml workflow',
      { file: path },
    );
  const scope = await openScope(path);
  await scope.dispose();
  return kind;
}

/**
 * Copies each workflow into `into` (a new, empty folder) under its own
 * name, and reads the copies back with serve's discovery, the one `raymond
 * mcp --root` uses, so the plugin's ids and tools are those its server will
 * offer. A path that is not a workflow, two workflows of one name or id,
 * or a manifest serve would refuse is one error naming the path given;
 * `out` (the plugin's folder) must not be inside a workflow it copies.
 */
export async function copyWorkflows(
  paths: readonly string[],
  into: string,
  out: string,
): Promise<PluginWorkflow[]> {
  const copies = new Map<string, string>();
  await mkdir(into, { recursive: true });
  for (const source of paths) {
    const abs = resolve(source);
    const kind = await kindOf(source);
    if (kind === 'folder' && isInside(abs, out))
      throw new RaymondError(
        'ERR_USAGE',
        `the plugin's folder ${out} is inside this workflow; give --out a folder outside it`,
        { file: source },
      );
    const dest = join(into, basename(abs));
    const other = [...copies].find(([d]) => d === dest)?.[1];
    if (other !== undefined)
      throw new RaymondError(
        'ERR_USAGE',
        `another workflow given has the same name, ${other}; a plugin holds one workflow of each name`,
        { file: source },
      );
    copies.set(dest, source);
    if (kind === 'folder') await copyFolder(abs, dest, source);
    else await copyFile(abs, dest);
  }
  const found = await discoverWorkflows([into]);
  const named = (text: string): string =>
    [...copies].reduce((t, [dest, source]) => t.split(dest).join(source), text);
  const copied: PluginWorkflow[] = [];
  for (const [dest, source] of copies) {
    const entry = [...found.workflows.values()].find((e) => isInside(dest, e.path));
    if (entry) {
      copied.push({ source, entry });
      continue;
    }
    const warning = found.warnings.find((w) => w.startsWith(`${dest}: `));
    throw new RaymondError(
      'ERR_SCOPE',
      warning
        ? named(warning.slice(dest.length + 2)).replace(/^not served: /, '')
        : 'raymond serve and raymond mcp would not find a workflow here',
      { file: source },
    );
  }
  return copied;
}
