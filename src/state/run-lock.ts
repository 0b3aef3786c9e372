import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { Type as T, type Static } from '@sinclair/typebox';
import { RaymondError } from '../errors.js';
import { checked } from '../schema-problem.js';
import { processStart, running } from './process-identity.js';

/**
 * What a lock file holds, as a TypeBox schema: a lock another process wrote
 * is checked whole (compiled on first use) before Raymond believes its pid.
 */
const LOCK_FILE = T.Object({
  // Not 0 nor negative: a signal to those goes to a process group, and no such process holds a lock.
  pid: T.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  host: T.String(),
  started_at: T.String(),
  /**
   * Which process the pid was when the lock was taken (boot id and start
   * time, from /proc): a pid reused by another process does not match.
   * Absent where /proc is not (and in locks of older versions).
   */
  process_start: T.Optional(T.String()),
  /** Random, so that no two locks ever have the same content (absent in locks of older versions). */
  nonce: T.Optional(T.String()),
});
/** What a lock file holds. */
export type LockInfo = Static<typeof LOCK_FILE>;
const lockFile = checked(LOCK_FILE);

/** A live holder of a lock, or one on another host whose liveness Raymond cannot see. */
export interface LockHolder extends LockInfo {
  /** True when the holder is on another host. */
  foreign: boolean;
}

/**
 * How long a lock file that is not a lock (empty, cut short) counts as held:
 * an older Raymond created its lock empty and wrote it just after, so such a
 * file may be a live lock being written. Older than this, it is a crash's.
 */
export const UNREADABLE_LOCK_GRACE_MS = 10_000;

/** One look at a lock file: its inode, content and age, read through one descriptor so they belong together. */
interface Snapshot {
  ino: number;
  text: string;
  ageMs: number;
}

function snapshot(path: string): Snapshot | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    return { ino: st.ino, text: readFileSync(fd, 'utf8'), ageMs: Date.now() - st.mtimeMs };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function parseLock(text: string): LockInfo | undefined {
  try {
    const info: unknown = JSON.parse(text);
    return lockFile.check(info) ? info : undefined;
  } catch {
    return undefined;
  }
}

/** Who a readable lock names, if that process still holds it: live on this host, or on another host. */
function holderOf(info: LockInfo): LockHolder | undefined {
  if (info.host !== hostname()) return { ...info, foreign: true };
  if (!running(info.pid)) return undefined;
  const now = info.process_start === undefined ? undefined : processStart(info.pid);
  if (now !== undefined && now !== info.process_start) return undefined;
  return { ...info, foreign: false };
}

/** A file that is not a lock but young enough to be one being written (by an older Raymond) is held, by nobody known. */
type Judgement = { held: LockHolder } | { held: 'unreadable' } | { held: undefined };

function judge(snap: Snapshot): Judgement {
  const info = parseLock(snap.text);
  if (info) return { held: holderOf(info) };
  return { held: snap.ageMs < UNREADABLE_LOCK_GRACE_MS ? 'unreadable' : undefined };
}

/**
 * Who holds a run's lock: a live process of this host that is still the
 * process that took it, or any process of another host (whose processes
 * Raymond cannot see). Undefined when the lock is free, stale, or a file
 * that is not a lock.
 */
export function lockHolder(path: string): LockHolder | undefined {
  const snap = snapshot(path);
  const info = snap && parseLock(snap.text);
  return info && holderOf(info);
}

function lockedError(
  path: string,
  workflowId: string,
  holder: LockHolder | 'unreadable',
): RaymondError {
  if (holder === 'unreadable') {
    return new RaymondError(
      'ERR_LOCKED',
      `run ${workflowId} is being locked by another process (its lock file is not written yet); try again in a moment`,
      { file: path },
    );
  }
  if (holder.foreign) {
    return new RaymondError(
      'ERR_LOCKED',
      `run ${workflowId} is locked by process ${holder.pid} on host ${JSON.stringify(holder.host)} (since ${holder.started_at}); Raymond cannot see that host's processes: if the run no longer runs there, delete this lock file and try again`,
      { file: path },
    );
  }
  return new RaymondError(
    'ERR_LOCKED',
    `run ${workflowId} is in use by process ${holder.pid} (since ${holder.started_at}); wait for it or stop it first`,
    { file: path },
  );
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Gone already.
  }
}

function errnoOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException).code;
}

/** Errors of a file system without hard links (vfat, some network shares). */
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/**
 * Puts the lock `text`, already written whole to `temp`, at `target` unless
 * something is there (EEXIST). Where hard links are not supported, the file
 * is created exclusively and written in one write: a reader may then see it
 * empty for an instant, which counts as held (UNREADABLE_LOCK_GRACE_MS).
 */
function placeExclusive(temp: string, text: string, target: string): void {
  try {
    linkSync(temp, target);
  } catch (err) {
    if (!NO_LINKS.has(errnoOf(err) ?? '')) throw err;
    writeFileSync(target, text, { flag: 'wx' });
  }
}

function claimName(path: string, stale: Snapshot, n: number): string {
  const key = createHash('sha256').update(`${stale.ino}\n${stale.text}`).digest('hex').slice(0, 16);
  return `${path}.claim-${key}-${n}`;
}

/** The name of the `n`-th claim on the lock at `path` as it is now (see takeOver); undefined without a lock. */
export function claimFile(path: string, n: number): string | undefined {
  const snap = snapshot(path);
  return snap && claimName(path, snap, n);
}

/**
 * Replaces the stale lock `stale` by ours (the file `mine`), or finds that
 * someone else is doing so or did. Two takers of one stale lock must not
 * both win, and the lock path must never be empty in between (a fresh start
 * would take it). So a taker first claims the stale lock: it links its own
 * lock to a name made from the stale lock's inode and content, which only
 * one process can create. The claimant checks the lock is still that stale
 * one and renames its own over it in one step. A claim whose claimant died
 * is itself stale: the next claim of the same lock takes the next number.
 * Returns true when the lock is ours, false to look again, or the live
 * claimant (or 'unreadable' for a claim being written).
 */
function takeOver(
  path: string,
  stale: Snapshot,
  mine: string,
  text: string,
): boolean | LockHolder | 'unreadable' {
  for (let n = 1; ; n++) {
    const claim = claimName(path, stale, n);
    try {
      placeExclusive(mine, text, claim);
    } catch (err) {
      if (errnoOf(err) !== 'EEXIST') throw err;
      const other = snapshot(claim);
      if (!other) return false;
      const verdict = judge(other).held;
      if (verdict !== undefined) return verdict;
      continue;
    }
    try {
      const now = snapshot(path);
      if (!now || now.ino !== stale.ino || now.text !== stale.text) return false;
      renameSync(mine, path);
      return true;
    } finally {
      unlinkQuietly(claim);
    }
  }
}

/**
 * One orchestrator per state file. The lock file holds the owner's pid,
 * host and process identity; a lock whose process is gone (or whose pid now
 * belongs to another process) is taken over, a lock of another host is
 * refused. A lock is written to a file of its own first and linked into
 * place whole, so no process ever reads a lock half-written; a stale lock
 * is replaced, never removed (see takeOver). Returns the release function.
 */
export function acquireLock(path: string, workflowId: string): () => void {
  const mine: LockInfo = {
    pid: process.pid,
    host: hostname(),
    started_at: new Date().toISOString(),
    nonce: randomBytes(8).toString('hex'),
  };
  const start = processStart(process.pid);
  if (start !== undefined) mine.process_start = start;
  const text = JSON.stringify(mine);
  const temp = `${path}.${process.pid}-${mine.nonce}`;
  const fail = (err: unknown): never => {
    throw new RaymondError(
      'ERR_STATE_FILE',
      `cannot create the lock: ${errnoOf(err) ?? String(err)}`,
      { file: path },
    );
  };
  let taken = false;
  try {
    writeFileSync(temp, text, { flag: 'wx' });
  } catch (err) {
    fail(err);
  }
  try {
    for (let attempt = 0; attempt < 5 && !taken; attempt++) {
      try {
        placeExclusive(temp, text, path);
        taken = true;
        break;
      } catch (err) {
        if (errnoOf(err) !== 'EEXIST') fail(err);
      }
      const snap = snapshot(path);
      if (!snap) continue;
      const { held } = judge(snap);
      if (held !== undefined) throw lockedError(path, workflowId, held);
      let outcome: ReturnType<typeof takeOver>;
      try {
        outcome = takeOver(path, snap, temp, text);
      } catch (err) {
        return fail(err);
      }
      if (outcome === true) taken = true;
      else if (outcome !== false) throw lockedError(path, workflowId, outcome);
    }
  } finally {
    unlinkQuietly(temp);
  }
  if (!taken)
    throw new RaymondError(
      'ERR_LOCKED',
      `could not take the lock of run ${workflowId}: another process keeps taking it`,
      { file: path },
    );
  const release = () => {
    const snap = snapshot(path);
    if (snap && parseLock(snap.text)?.nonce === mine.nonce) unlinkQuietly(path);
  };
  process.once('exit', release);
  return () => {
    process.off('exit', release);
    release();
  };
}
