import { lstat, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { RaymondError, type ErrorCode } from './errors.js';

/** A folder of this process's own under the user's private temporary folder. */
export interface PrivateFolder {
  readonly path: string;
  /** Removes the folder and everything in it. */
  remove(): Promise<void>;
}

/** What a private folder is for: its parent's name, and how a refusal reads. */
export interface PrivateFolderKind {
  /** `zip` makes `$TMPDIR/raymond-zip-<user>/`. */
  name: string;
  /** Completes "cannot create a folder ...", e.g. "to extract the archive into". */
  purpose: string;
  /** The code of the error when the folder cannot be made or is not private. */
  code: ErrorCode;
}

/** Zip scopes: the state files extracted from an archive. */
export const ZIP_FOLDER: PrivateFolderKind = {
  name: 'zip',
  purpose: 'to extract the archive into',
  code: 'ERR_SCOPE',
};

// `<pid>-<random>`: the owner's pid is part of the folder's name.
const OWNED = /^(\d+)-/;

/**
 * Makes a folder as `$TMPDIR/raymond-<kind>-<user>/<pid>-<random>`.
 * `remove` removes it, but an orchestrator killed with SIGKILL runs no code,
 * so every call first removes the folders whose owner process is gone: the
 * next run that needs one cleans up after a killed one. A folder whose pid was
 * reused by a live process is kept until that process ends too; removing a
 * live run's files would be worse than leaving a few kilobytes in a temporary
 * folder.
 */
export async function createPrivateFolder(kind: PrivateFolderKind): Promise<PrivateFolder> {
  const parent = await userFolder(kind);
  await removeOrphans(parent);
  const path = await mkdtemp(join(parent, `${process.pid}-`));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/**
 * The per-user parent folder. It is shared by this user's runs only: one that
 * another user created, made writable by others, or replaced with a symlink
 * is refused, since what is in it is run or read as trusted.
 */
async function userFolder(kind: PrivateFolderKind): Promise<string> {
  const uid = process.getuid?.();
  const parent = join(tmpdir(), `raymond-${kind.name}-${uid ?? userInfo().username}`);
  await mkdir(parent, { mode: 0o700 }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST')
      throw new RaymondError(
        kind.code,
        `cannot create a folder ${kind.purpose}: ${err.code ?? err.message}`,
        { file: parent },
      );
  });
  const info = await lstat(parent);
  // Owners and modes are POSIX notions; on Windows the folder lives in the user's own profile.
  const shared = uid !== undefined && (info.uid !== uid || (info.mode & 0o077) !== 0);
  if (!info.isDirectory() || shared) {
    throw new RaymondError(
      kind.code,
      'is not a private folder of this user (a symlink, another owner, or open to others); remove it or set TMPDIR',
      { file: parent },
    );
  }
  return parent;
}

async function removeOrphans(parent: string): Promise<void> {
  for (const name of await readdir(parent)) {
    const pid = Number(OWNED.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid !== process.pid && !alive(pid))
      await rm(join(parent, name), { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
