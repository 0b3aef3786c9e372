import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RaymondError } from '../errors.js';
import { ignoreRaymondFolder, projectRaymondDir } from '../raymond-folder.js';
import { downloadBytes } from './http-download.js';
import { checkZipHash, hashInZipName } from './zip-hash.js';
import { zipScopeFiles } from './zip-scope.js';

/** Most bytes a remote workflow may hold (the download is kept in memory until its hash is checked). */
export const MAX_DOWNLOAD_BYTES = 64 * 2 ** 20;
/** Milliseconds a remote workflow's download may take, answer and body together. */
export const DOWNLOAD_TIMEOUT_MS = 60_000;

/** Whether a workflow specifier names a remote workflow (an http or https URL) rather than a path. */
export function isRemoteSpecifier(specifier: string): boolean {
  return /^https?:\/\//i.test(specifier);
}

/**
 * The local path of a workflow specifier: a path as given; for a URL, the
 * project's cached copy `<.raymond>/registry/<sha256>.zip`, downloaded and
 * checked first when it is not there yet. `cwd` finds the project's
 * `.raymond` folder.
 */
export async function localWorkflowPath(specifier: string, cwd: string): Promise<string> {
  if (!isRemoteSpecifier(specifier)) return specifier;
  const raymondDir = projectRaymondDir(cwd);
  const path = await fetchRemoteZip(specifier, join(raymondDir, 'registry'));
  await ignoreRaymondFolder(raymondDir);
  return path;
}

/**
 * Gives the path of `<registryDir>/<sha256>.zip` for a URL whose last path
 * segment is `<sha256>.zip`. A cached copy is used as it is (its opener
 * checks its hash again); else the URL is downloaded, its hash and its zip
 * layout checked, and only then is the file put in place, by a rename, so
 * the final name never holds a partial or refused download.
 */
export async function fetchRemoteZip(
  url: string,
  registryDir: string,
  timeoutMs = DOWNLOAD_TIMEOUT_MS,
): Promise<string> {
  const segment = lastSegment(url);
  const hash = hashInZipName(segment);
  if (hash === undefined) {
    throw new RaymondError(
      'ERR_SCOPE',
      'a remote workflow must be named by its hash: the URL must end in <64 hex digits of its sha256>.zip',
      { file: url },
    );
  }
  const target = join(registryDir, `${hash}.zip`);
  if (existsSync(target)) return target;
  const data = await downloadBytes(url, { maxBytes: MAX_DOWNLOAD_BYTES, timeoutMs });
  checkZipHash(segment, data, url);
  zipScopeFiles(data, url);
  await mkdir(registryDir, { recursive: true });
  const temp = join(registryDir, `.${hash}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(temp, data, { flag: 'wx' });
    await rename(temp, target);
  } catch (err) {
    await rm(temp, { force: true });
    throw new RaymondError(
      'ERR_DOWNLOAD',
      `cannot store the download: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
      { file: target },
    );
  }
  return target;
}

function lastSegment(url: string): string {
  try {
    return new URL(url).pathname.split('/').at(-1) ?? '';
  } catch {
    throw new RaymondError('ERR_SCOPE', 'not a valid URL', { file: url });
  }
}
