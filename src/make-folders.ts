import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Making Raymond's folders one level at a time. Node's `mkdir(path, {
 * recursive: true })` loops forever where a parent cannot be made and yet
 * mkdir says ENOENT (`/proc/foo/state`), and on a file system out of inodes
 * it reports ENOENT instead of ENOSPC. Made level by level, each mkdir runs
 * once and its own error comes back.
 */

function codeOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException).code;
}

function notFolder(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${path}'`), {
    code: 'ENOTDIR',
    path,
  });
}

/** Makes `path` and its missing parents; an error is the first mkdir's that failed (ENOSPC, ENOENT, EACCES...). */
export function makeFoldersSync(path: string): void {
  const missing: string[] = [];
  for (let at = resolve(path); ; at = dirname(at)) {
    try {
      mkdirSync(at);
    } catch (err) {
      if (codeOf(err) === 'EEXIST') {
        if (!statSync(at).isDirectory()) throw notFolder(at);
        break;
      }
      if (codeOf(err) !== 'ENOENT' || dirname(at) === at) throw err;
      missing.push(at);
      continue;
    }
    break;
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir);
    } catch (err) {
      if (codeOf(err) !== 'EEXIST') throw err;
    }
  }
}

/** Errors of a full disk: out of space or inodes (ENOSPC), over quota (EDQUOT), past the file size limit (EFBIG). */
export function isDiskFull(err: unknown): boolean {
  const code = codeOf(err);
  return code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG';
}

export { DISK_FULL_HINT } from './errors.js';

/**
 * makeFoldersSync for async callers: a few mkdir calls that each return at
 * once, so nothing is gained by giving the event loop back between them.
 */
export async function makeFolders(path: string): Promise<void> {
  makeFoldersSync(path);
}
