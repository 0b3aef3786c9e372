import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { RaymondError } from '../errors.js';

interface LockInfo {
  pid: number;
  host: string;
  started_at: string;
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A zombie has exited: its lock is stale.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true;
  }
}

function readLock(path: string): LockInfo | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as LockInfo;
  } catch {
    return undefined;
  }
}

/** Who holds a run's lock, if a live process does. */
export function lockHolder(path: string): LockInfo | undefined {
  const info = readLock(path);
  return info && info.host === hostname() && running(info.pid) ? info : undefined;
}

/**
 * One orchestrator per state file. The lock file holds the owner's pid; a
 * lock left by a dead process is taken over. Returns the release function.
 */
export function acquireLock(path: string, workflowId: string): () => void {
  const mine: LockInfo = { pid: process.pid, host: hostname(), started_at: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(path, JSON.stringify(mine), { flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new RaymondError('ERR_STATE_FILE', `cannot create the lock: ${(err as NodeJS.ErrnoException).code}`, { file: path });
      }
      const holder = lockHolder(path);
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
