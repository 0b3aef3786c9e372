import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { RaymondError } from '../errors.js';
import { walkWorkflowFolder } from '../scope/folder-walk.js';
import type { BlobStore } from './blob-store.js';
import { folderManifest, type FolderManifest } from './queue-schemas.js';

/** The files of a folder a script runs from: relative path → hash and whether it is executable. */
export type { FolderManifest } from './queue-schemas.js';

/** Folders a manifest skips: they are never part of a workflow. */
const SKIPPED = new Set(['.git', 'node_modules', '.raymond']);
/** Most bytes and files a workflow folder may send: it travels with the run to every worker. */
const MAX_BYTES = 64 * 2 ** 20;
const MAX_FILES = 2000;

/**
 * Sends the folder a script state runs from (its workflow folder, or the
 * folder a zip or YAML workflow was extracted to) as blobs, and returns the
 * hash of its manifest: the signed job names only that hash, and every file
 * is checked against it on the worker. Its files are those a run on one
 * machine reads (walkWorkflowFolder): a symbolic link that leaves the
 * folder is refused in one line (its target would be read from anywhere on
 * this machine).
 */
export async function sendFolder(
  dir: string,
  blobs: BlobStore,
): Promise<{ manifest: string; shas: string[] }> {
  const manifest: FolderManifest = { files: {} };
  let bytes = 0;
  await walkWorkflowFolder(
    dir,
    SKIPPED,
    ({ path, rel, real }) => {
      throw new RaymondError(
        'ERR_QUEUE',
        `"${rel}" is a symbolic link to ${real}, outside the workflow folder: workers get only the folder's own files, so a run with --queue refuses it (copy the file into the folder)`,
        { file: path },
      );
    },
    async ({ path, rel, info }) => {
      bytes += info.size;
      if (bytes > MAX_BYTES || Object.keys(manifest.files).length >= MAX_FILES) {
        throw new RaymondError(
          'ERR_QUEUE',
          `the workflow folder is too big to send to workers (at most ${MAX_FILES} files, ${MAX_BYTES / 2 ** 20} MiB)`,
          { file: dir },
        );
      }
      manifest.files[rel] = {
        sha: await blobs.put(await readFile(path)),
        exec: (info.mode & 0o111) !== 0,
      };
    },
  );
  const sha = await blobs.put(Buffer.from(JSON.stringify(manifest)));
  return { manifest: sha, shas: [sha, ...Object.values(manifest.files).map((f) => f.sha)] };
}

/** Whether a manifest's path stays inside its folder. */
function safePath(rel: string): boolean {
  return (
    rel !== '' &&
    !rel.startsWith('/') &&
    !rel.split('/').some((p) => p === '..' || p === '' || p === '.')
  );
}

/**
 * The local copy of a workflow folder on a worker, made once per manifest
 * under `cache` (every file checked against its hash) and reused after.
 */
export async function receiveFolder(
  manifestSha: string,
  blobs: BlobStore,
  cache: string,
): Promise<string> {
  if (!/^[0-9a-f]{64}$/.test(manifestSha))
    throw new RaymondError(
      'ERR_QUEUE_REFUSED',
      `a workflow folder's hash "${manifestSha.slice(0, 80)}" is not a SHA-256: refused`,
    );
  const dir = join(cache, manifestSha);
  if (existsSync(dir)) return dir;
  const manifest = readManifest((await blobs.get(manifestSha)).toString('utf8'), manifestSha);
  const tmp = `${dir}.${randomUUID()}.tmp`;
  try {
    for (const [rel, f] of Object.entries(manifest.files)) {
      if (!safePath(rel))
        throw new RaymondError(
          'ERR_QUEUE_REFUSED',
          `a workflow file's path "${rel}" leaves its folder: refused`,
        );
      const path = join(tmp, rel);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, await blobs.get(f.sha));
      if (f.exec) await chmod(path, 0o755);
    }
    await mkdir(tmp, { recursive: true });
    await rename(tmp, dir).catch(async (err: NodeJS.ErrnoException) => {
      // Another job of the same run made it first.
      if (!existsSync(dir)) throw err;
      await rm(tmp, { recursive: true, force: true });
    });
    return dir;
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    throw err;
  }
}

/** A manifest's text, checked: another version's (or a forged) manifest is refused in one line. */
function readManifest(text: string, sha: string): FolderManifest {
  const refuse = (problem: string) =>
    new RaymondError(
      'ERR_QUEUE_REFUSED',
      `the workflow folder's manifest ${sha.slice(0, 12)} is not one: ${problem}: refused`,
    );
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw refuse('it is not JSON');
  }
  if (folderManifest.check(value)) return value;
  throw refuse(String(folderManifest.problem(value, 'the manifest')));
}
