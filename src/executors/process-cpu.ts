import { readFileSync } from 'node:fs';

/** Linux's clock ticks per second (`getconf CLK_TCK`), which /proc/<pid>/stat counts CPU time in. */
const TICKS_PER_SECOND = 100;
/** Samples closer together than this are skipped: a chatty process prints many lines a second. */
const MIN_GAP_MS = 100;

/**
 * The CPU time (ms) a process used, with the children it has waited for:
 * utime + stime + cutime + cstime of /proc/<pid>/stat. Undefined where there
 * is no /proc, or once the process is gone.
 */
export function processCpuMs(pid: number): number | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name may hold spaces and parentheses: the fields start after its last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // Fields 14-17 of the line (utime, stime, cutime, cstime) are 11-14 after the name and state.
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i] ?? 0), 0);
  return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_SECOND : undefined;
}

/**
 * The CPU time of one process as last seen. A process's figure can only be
 * read while it exists, so it is sampled as it prints and when its output
 * ends (its exit closes the pipes, and the zombie still has its figures
 * until it is reaped): a process that works long in silence before it exits
 * may show less than it used.
 */
export class CpuSampler {
  private last = 0;
  private at = 0;

  constructor(private readonly pid: number | undefined) {}

  /** Reads the figure now, unless it was read less than 100 ms ago (`force`: read anyway). */
  sample(force = false): void {
    if (this.pid === undefined) return;
    const now = Date.now();
    if (!force && now - this.at < MIN_GAP_MS) return;
    this.at = now;
    const ms = processCpuMs(this.pid);
    if (ms !== undefined && ms > this.last) this.last = ms;
  }

  get ms(): number {
    return this.last;
  }
}
