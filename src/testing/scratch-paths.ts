import { lstatSync, realpathSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { isInside } from '../scope/contained-file.js';

/**
 * Where a test file's `files:` and `expect.files:` names really are. The
 * loader checks a name's text; the working directory may still hold
 * symbolic links (copied from `workdir:`, or made by the run) that lead
 * out of it, so every write and read goes through here first.
 */

/** What a name in the test's working directory resolves to, following every link. */
export type ScratchPath =
  { kind: 'inside'; path: string } | { kind: 'outside' } | { kind: 'missing'; path: string };

/**
 * `name` in `work` (a real path) with every symbolic link followed: `outside`
 * when it or any folder on the way leads out of `work`, `missing` (with where
 * it would be created) when it does not exist yet.
 */
export function scratchPath(work: string, name: string): ScratchPath {
  const path = resolve(work, name);
  // The deepest part of the path that exists: links can only be there.
  let existing = path;
  while (!exists(existing)) existing = dirname(existing);
  let real: string;
  try {
    real = realpathSync(existing);
  } catch {
    // A dangling link: where it points cannot be checked, so it is not followed.
    return { kind: 'outside' };
  }
  if (!isInside(work, real)) return { kind: 'outside' };
  const target = join(real, relative(existing, path));
  return existing === path ? { kind: 'inside', path: target } : { kind: 'missing', path: target };
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
