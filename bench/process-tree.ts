import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** What marks a spawner process: its command line names the spawner entry point. */
export const SPAWNER_MARK = 'spawner.main';

/** The file's text, or '' when the process (or the file) is gone: processes end between reads. */
function read(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function list(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

/** VmRSS and VmHWM (peak) of a process, in kB; zero when it is gone. */
export function residentKb(pid: number): { rss: number; hwm: number } {
  const status = read(`/proc/${pid}/status`);
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/**
 * Proportional set size in KB: resident pages, those shared with other
 * processes (the node binary's code, mapped by the orchestrator and every
 * spawner) divided among them, so a sum over processes counts them once.
 */
export function proportionalKb(pid: number): number {
  return Number(/^Pss:\s+(\d+)/m.exec(read(`/proc/${pid}/smaps_rollup`))?.[1] ?? 0);
}

/** True when the process's command line names the spawner entry point. */
export function isSpawner(pid: number): boolean {
  // cmdline separates arguments with NUL; the mark is looked for anywhere in it.
  return read(`/proc/${pid}/cmdline`).includes(SPAWNER_MARK);
}

/**
 * Direct children of `pid`, from each of its threads' `children` file: a
 * child belongs to the thread that forked it, and a Node process may fork
 * from more than its main thread. A few reads, however many processes the
 * machine runs.
 */
function childrenFromTasks(pid: number): number[] {
  return list(`/proc/${pid}/task`).flatMap((tid) =>
    read(`/proc/${pid}/task/${tid}/children`).split(' ').filter(Boolean).map(Number),
  );
}

/** Parent of each process on the machine, for kernels without `children` files. */
function parentMap(): Map<number, number[]> {
  const byParent = new Map<number, number[]>();
  for (const name of list('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    // The command name in parentheses may hold spaces: the ppid is the second field after it.
    const stat = read(`/proc/${name}/stat`);
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    byParent.set(ppid, [...(byParent.get(ppid) ?? []), Number(name)]);
  }
  return byParent;
}

// Checked once: CONFIG_PROC_CHILDREN is on in most kernels, but not all.
const HAS_CHILDREN_FILES = existsSync(`/proc/self/task/${process.pid}/children`);

/** Every live descendant of `root` (children, their children, ...), not `root` itself. */
export function descendants(root: number): number[] {
  const byParent = HAS_CHILDREN_FILES ? undefined : parentMap();
  const childrenOf = (pid: number) =>
    byParent ? (byParent.get(pid) ?? []) : childrenFromTasks(pid);
  const found: number[] = [];
  const queue = childrenOf(root);
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    found.push(pid);
    queue.push(...childrenOf(pid));
  }
  return found;
}
