import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { RaymondError } from '../errors.js';

/** What a lock file holds. */
export interface LockInfo {
  pid: number;
  host: string;
  started_at: string;
  /**
   * Which process the pid was when the lock was taken (boot id and start
   * time, from /proc): a pid reused by another process does not match.
   * Absent where /proc is not (and in locks of older versions).
   */
  process_start?: string;
}

/** A live holder of a lock, or one on another host whose liveness Raymond cannot see. */
export interface LockHolder extends LockInfo {
  /** True when the holder is on another host. */
  foreign: boolean;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Fields of /proc/PID/stat after the command name, which may itself hold spaces and parentheses. */
function procStat(pid: number): string[] | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  return stat === undefined ? undefined : stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The identity of the process that has `pid` now: boot id and start time (clock ticks since boot). */
function processStart(pid: number): string | undefined {
  const boot = readText('/proc/sys/kernel/random/boot_id')?.trim();
  // Field 22 of stat, the 20th after the name.
  const start = procStat(pid)?.[19];
  return boot && start ? `${boot}/${start}` : undefined;
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A zombie has exited: its lock is stale.
  const stat = procStat(pid);
  return stat === undefined || stat[0] !== 'Z';
}

/** A lock file's content, or undefined when it is unreadable or not a lock (a crash mid-write): stale. */
function readLock(path: string): LockInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockInfo> | null;
    return info && Number.isSafeInteger(info.pid) && typeof info.host === 'string' ? (info as LockInfo) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Who holds a run's lock: a live process of this host that is still the
 * process that took it, or any process of another host (whose processes
 * Raymond cannot see). Undefined when the lock is free or stale.
 */
export function lockHolder(path: string): LockHolder | undefined {
  const info = readLock(path);
  if (!info) return undefined;
  if (info.host !== hostname()) return { ...info, foreign: true };
  if (!running(info.pid)) return undefined;
  const now = info.process_start === undefined ? undefined : processStart(info.pid);
  if (now !== undefined && now !== info.process_start) return undefined;
  return { ...info, foreign: false };
}

/**
 * One orchestrator per state file. The lock file holds the owner's pid,
 * host and process identity; a lock whose process is gone (or whose pid now
 * belongs to another process) is taken over, a lock of another host is
 * refused. Returns the release function.
 */
export function acquireLock(path: string, workflowId: string): () => void {
  const mine: LockInfo = { pid: process.pid, host: hostname(), started_at: new Date().toISOString() };
  const start = processStart(process.pid);
  if (start !== undefined) mine.process_start = start;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(path, JSON.stringify(mine), { flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new RaymondError('ERR_STATE_FILE', `cannot create the lock: ${(err as NodeJS.ErrnoException).code}`, { file: path });
      }
      const holder = lockHolder(path);
      if (holder?.foreign) {
        throw new RaymondError('ERR_LOCKED', `run ${workflowId} is locked by process ${holder.pid} on host ${JSON.stringify(holder.host)} (since ${holder.started_at}); Raymond cannot see that host's processes: if the run no longer runs there, delete this lock file and try again`, { file: path });
      }
      if (holder) {
        throw new RaymondError('ERR_LOCKED', `run ${workflowId} is in use by process ${holder.pid} (since ${holder.started_at}); wait for it or stop it first`, { file: path });
      }
      // Stale: its owner is gone. Remove it and race for it again.
      try {
        unlinkSync(path);
      } catch {
        // Someone else removed it first.
      }
      continue;
    }
    const release = () => {
      if (readLock(path)?.pid === process.pid) {
        try {
          unlinkSync(path);
        } catch {
          // Already gone.
        }
      }
    };
    process.once('exit', release);
    return () => {
      process.off('exit', release);
      release();
    };
  }
  throw new RaymondError('ERR_LOCKED', `could not take the lock of run ${workflowId}: another process keeps taking it`, { file: path });
}
