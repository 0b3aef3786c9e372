import { readFileSync } from 'node:fs';

// How Raymond tells whether a lock's pid is still the process that took it: kept apart from
// run-lock.ts, which only decides what a lock file means, so the /proc reading stays in one place.

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
export function processStart(pid: number): string | undefined {
  const boot = readText('/proc/sys/kernel/random/boot_id')?.trim();
  // Field 22 of stat, the 20th after the name.
  const start = procStat(pid)?.[19];
  return boot && start ? `${boot}/${start}` : undefined;
}

/** Whether `pid` is a live process (a zombie is not: it has exited). EPERM means it lives, as another user's. */
export function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A zombie has exited: its lock is stale.
  const stat = procStat(pid);
  return stat === undefined || stat[0] !== 'Z';
}
