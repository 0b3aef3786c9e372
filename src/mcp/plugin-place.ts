import { lstat, readFile, readdir, rename, rm, rmdir, unlink, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { RaymondError } from '../errors.js';
import { walkWorkflowFolder } from '../scope/folder-walk.js';

/**
 * Raymond's own record, in a plugin folder, of the files an export wrote
 * there: `--force` replaces those and nothing else, so the user's own files
 * and a `.git` in the folder survive a new export.
 */
export const EXPORT_MANIFEST = '.raymond-export.json';

/** What is at `--out` before an export. */
export type ExistingOut =
  | { kind: 'none' }
  | { kind: 'empty' }
  /** A folder an earlier export wrote: the files it lists. */
  | { kind: 'export'; files: string[] };

/** A manifest path Raymond may remove or write: relative, no `..`, nothing inside `.git`. */
function ownPath(rel: unknown): rel is string {
  if (typeof rel !== 'string' || rel === '' || rel.startsWith('/') || rel === EXPORT_MANIFEST)
    return false;
  const parts = rel.split('/');
  return !parts.some((p) => p === '' || p === '.' || p === '..') && parts[0] !== '.git';
}

async function readManifest(out: string): Promise<string[] | undefined> {
  const info = await lstat(join(out, EXPORT_MANIFEST)).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  try {
    const data = JSON.parse(await readFile(join(out, EXPORT_MANIFEST), 'utf8')) as {
      raymond_export?: unknown;
      files?: unknown;
    };
    if (data.raymond_export !== 1 || !Array.isArray(data.files)) return undefined;
    return data.files.filter(ownPath);
  } catch {
    return undefined;
  }
}

/** Whether `out` exists and may be written: a file is refused, a non-empty folder unless --force and an export made it. */
export async function checkOut(out: string, force: boolean): Promise<ExistingOut> {
  const info = await lstat(out).catch(() => undefined);
  if (!info) return { kind: 'none' };
  if (!info.isDirectory())
    throw new RaymondError('ERR_USAGE', 'not a folder: --out names the folder to write', {
      file: out,
    });
  if ((await readdir(out)).length === 0) return { kind: 'empty' };
  if (!force)
    throw new RaymondError('ERR_USAGE', 'not empty: give --force to replace the plugin in it', {
      file: out,
    });
  const files = await readManifest(out);
  if (files === undefined)
    throw new RaymondError(
      'ERR_USAGE',
      `not empty, and no raymond export made it (it has no ${EXPORT_MANIFEST}): --force replaces only the files an export wrote; give --out an empty or new folder`,
      { file: out },
    );
  return { kind: 'export', files };
}

/** Whether every folder on the way from `out` to `rel` is a real folder or missing (never a link to elsewhere). */
async function plainWay(out: string, rel: string): Promise<boolean> {
  const parts = rel.split('/');
  for (let i = 1; i < parts.length; i++) {
    const info = await lstat(join(out, ...parts.slice(0, i))).catch(() => undefined);
    if (!info) return true;
    if (!info.isDirectory()) return false;
  }
  return true;
}

const writeManifest = (dir: string, files: readonly string[]) =>
  writeFileAtomic(
    join(dir, EXPORT_MANIFEST),
    `${JSON.stringify({ raymond_export: 1, files: [...files].sort() }, null, 2)}\n`,
  );

/**
 * Puts the plugin built in `staging` at `out`. A new or empty `out` takes
 * the staging folder whole, in one rename. An earlier export's folder has
 * the files its manifest lists replaced by the new ones; a file of the
 * user's where the export would write is refused before anything changes.
 * The manifest first lists both sets, so an export cut short is cleaned by
 * the next one.
 */
export async function placePlugin(
  staging: string,
  out: string,
  existing: ExistingOut,
): Promise<void> {
  const files: string[] = [];
  await walkWorkflowFolder(
    staging,
    new Set(),
    () => {
      throw new Error('a plugin being written holds no links');
    },
    async ({ rel }) => void files.push(rel),
  );
  if (existing.kind !== 'export') {
    await writeManifest(staging, files);
    if (existing.kind === 'empty') await rmdir(out);
    return rename(staging, out);
  }
  const old = new Set(existing.files);
  for (const rel of files) {
    const taken = !old.has(rel) && (await lstat(join(out, rel)).catch(() => undefined));
    if (taken || !(await plainWay(out, rel)))
      throw new RaymondError(
        'ERR_USAGE',
        `"${rel}" in the plugin folder is not a file an earlier export wrote: move it away, then export again`,
        { file: out },
      );
  }
  await writeManifest(out, [...new Set([...existing.files, ...files])]);
  for (const rel of existing.files) {
    if (!(await plainWay(out, rel))) continue;
    const info = await lstat(join(out, rel)).catch(() => undefined);
    if (info && !info.isDirectory()) await unlink(join(out, rel));
  }
  for (const rel of files) {
    await mkdir(dirname(join(out, rel)), { recursive: true });
    await rename(join(staging, rel), join(out, rel));
  }
  await writeManifest(out, files);
  // The old files' folders that are empty now, deepest first; a folder with the user's files stays.
  const folders = new Set(existing.files.flatMap((rel) => ancestors(rel)));
  for (const dir of [...folders].sort((a, b) => b.length - a.length))
    await rmdir(join(out, dir)).catch(() => undefined);
  await rm(staging, { recursive: true, force: true });
}

/** The folders above a relative path, `a/b/c` → `a/b`, `a`. */
function ancestors(rel: string): string[] {
  const out: string[] = [];
  for (let d = dirname(rel); d !== '.'; d = dirname(d)) out.push(d);
  return out;
}
