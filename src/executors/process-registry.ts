import { unwatchGroup, watchGroup } from './group-watchdog.js';

/**
 * Process groups Raymond has started and not yet seen exit. Every child runs
 * in its own group (execa kills only the direct child), so stopping a step
 * means signalling the whole group, and so does leaving the process.
 */
const groups = new Set<number>();
/** The groups the watchdog holds: those Raymond started itself, not through a spawner. */
const watched = new Set<number>();
let hooked = false;

/** Sends a signal to a whole process group, ignoring groups that are gone. */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group already exited.
  }
}

/**
 * A group started and not yet seen exit. `watched` (the default) hands it to
 * the watchdog too, for a group no spawner ends when Raymond dies.
 */
export function registerGroup(pid: number, opts: { watched?: boolean } = {}): void {
  groups.add(pid);
  if (opts.watched !== false) {
    watched.add(pid);
    watchGroup(pid);
  }
  if (!hooked) {
    hooked = true;
    // The last line of defence: no step may outlive the orchestrator.
    process.on('exit', () => killAllGroups('SIGKILL'));
  }
}

export function unregisterGroup(pid: number): void {
  groups.delete(pid);
  if (watched.delete(pid)) unwatchGroup(pid);
}

/** Signals every live group (Ctrl-C, SIGTERM, exit). */
export function killAllGroups(signal: NodeJS.Signals): void {
  for (const pid of groups) killGroup(pid, signal);
}

/** Number of groups still running (the spawner tests wait on it). */
export function liveGroupCount(): number {
  return groups.size;
}
