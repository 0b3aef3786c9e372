import type { Stats } from 'node:fs';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { isInside } from './contained-file.js';

/** A regular file of a workflow folder, as the walk reaches it. */
export interface WalkedFile {
  /** Its path under the folder as given (through any link it was reached by). */
  path: string;
  /** That path relative to the folder, with `/` between names. */
  rel: string;
  /** What it is: the link's target for a link. */
  info: Stats;
}

/** A symbolic link that resolves outside the folder: what the caller refuses it with. */
export interface LinkOut {
  path: string;
  rel: string;
  /** Where it resolves to. */
  real: string;
}

/**
 * Walks a workflow folder's regular files, as a run on this machine reads
 * them: a symbolic link to a file or folder inside the folder is followed
 * (its content under the link's own name), one that resolves outside the
 * folder is handed to `linkOut` (which throws: its target could be anything
 * on this machine), one that points to nothing is left out, and a folder
 * reached twice (a link to a parent) is walked once. Folders named in
 * `skip` are not entered; FIFOs, sockets and devices are left out.
 */
export async function walkWorkflowFolder(
  dir: string,
  skip: ReadonlySet<string>,
  linkOut: (link: LinkOut) => never,
  visit: (file: WalkedFile) => Promise<void>,
): Promise<void> {
  const top = await realpath(dir);
  const walked = new Set<string>();
  const walk = async (d: string): Promise<void> => {
    const real = await realpath(d);
    if (walked.has(real)) return;
    walked.add(real);
    for (const name of (await readdir(d)).sort()) {
      if (skip.has(name)) continue;
      const path = join(d, name);
      const rel = relative(dir, path).split(sep).join('/');
      let info = await lstat(path);
      if (info.isSymbolicLink()) {
        const target = await realpath(path).catch(() => undefined);
        if (target === undefined) continue;
        if (!isInside(top, target)) linkOut({ path, rel, real: target });
        info = await stat(path);
      }
      if (info.isDirectory()) await walk(path);
      else if (info.isFile()) await visit({ path, rel, info });
    }
  };
  await walk(dir);
}
