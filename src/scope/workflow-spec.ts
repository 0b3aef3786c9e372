import { stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, resolve as resolvePath, sep } from 'node:path';
import { RaymondError } from '../errors.js';
import { isRemoteSpecifier, localWorkflowPath } from './remote-zip.js';

/** Kinds of scope a specifier can open: a folder, or a one-file package (a zip or a YAML workflow). */
export type SpecKind = 'dir' | 'zip' | 'yaml';

/** Where a workflow specifier leads: the scope to open and, when the specifier names one, its entry state. */
export interface SpecTarget {
  /** Absolute path of the scope: the folder, the `.zip` or the `.yaml` file. */
  root: string;
  kind: SpecKind;
  /** A state named by the specifier (`dir/BUILD`, `x.zip/STATE`), as written: with or without extension. */
  state?: string;
}

const PACKAGE = /\.(zip|ya?ml)$/i;

/** The kind of one-file package a path names, by its extension. */
export function packageKind(path: string): 'zip' | 'yaml' | undefined {
  const m = PACKAGE.exec(path);
  if (!m) return undefined;
  return m[1]!.toLowerCase() === 'zip' ? 'zip' : 'yaml';
}

/**
 * The folder relative specifiers are resolved in, for a scope rooted at
 * `root`: the folder itself, and for a zip or YAML workflow a folder named
 * after the file (`/wf/a.zip` is `/wf/a/`), so `../b/` means the same
 * from a package as from a folder beside it.
 */
export function specBase(root: string, kind: SpecKind): string {
  return kind === 'dir' ? root : root.replace(PACKAGE, '');
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() === true;
}

/**
 * Finds what a workflow specifier names, as `ray` does: a folder (with or
 * without a trailing slash), a state file in a folder (`dir/1_START.md`), an
 * extension-less state (`dir/BUILD`: a folder if one is there, else a
 * state of the parent folder), a `.zip` or a `.yaml`/`.yml` file, optionally
 * followed by one state name (`x.zip/STATE`), or the URL of a hashed zip.
 * `/` and `\` both separate folders. Relative specifiers resolve against
 * `base`, never the current directory. Opening the scope checks the rest.
 * @throws RaymondError ERR_WORKFLOW_SPEC naming `where` for what cannot be a workflow.
 */
export async function locateSpec(spec: string, base: string, where: string): Promise<SpecTarget> {
  const fail = (why: string): never => {
    throw new RaymondError('ERR_WORKFLOW_SPEC', `workflow "${spec}" ${why}`, { file: where });
  };
  // A remote zip lands in the registry of the project the run is in, as one named on the command line does.
  if (isRemoteSpecifier(spec))
    return { root: await localWorkflowPath(spec, process.cwd()), kind: 'zip' };
  const written = spec.trim().replace(/[\\/]/g, sep);
  if (written === '') fail('is empty');
  const trailing = written.endsWith(sep);
  const path = isAbsolute(written) ? resolvePath(written) : resolvePath(base, written);
  // A package followed by one state: `x.zip/STATE`, `flow.yaml/STATE`.
  const parent = dirname(path);
  if (packageKind(parent) && (await isFile(parent))) {
    if (trailing)
      fail(
        `names a state inside ${basename(parent)} with a trailing slash; write ${basename(parent)}/${basename(path)}`,
      );
    return { root: parent, kind: packageKind(parent)!, state: basename(path) };
  }
  const kind = packageKind(path);
  if (kind) {
    if (!(await isFile(path))) fail(`is not there (looked for ${path})`);
    return { root: path, kind };
  }
  const info = await stat(path).catch(() => undefined);
  if (info?.isDirectory()) return { root: path, kind: 'dir' };
  if (trailing) fail(`is not a folder (looked for ${path})`);
  if (!(await stat(parent).catch(() => undefined))?.isDirectory())
    fail(`is not there: no folder ${parent}`);
  // A state file (`dir/1_START.md`) or an extension-less name that is no folder (`dir/BUILD`):
  // a state of the parent folder, resolved there as a target is.
  return { root: parent, kind: 'dir', state: basename(path) };
}
