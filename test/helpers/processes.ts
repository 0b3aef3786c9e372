import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls until `condition` holds. The deadline only stops a test that would
 * otherwise hang; it is far above how long the awaited thing takes.
 */
export async function waitUntil(
  condition: () => boolean,
  what: string,
  deadlineMs = 15_000,
): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`gave up waiting: ${what}`);
    await sleep(20);
  }
}

/** The pid a script wrote to `file`, once it is there. */
export async function pidFromFile(file: string): Promise<number> {
  await waitUntil(
    () => existsSync(file) && readFileSync(file, 'utf8').endsWith('\n'),
    `a pid in ${file}`,
  );
  return Number(readFileSync(file, 'utf8').trim());
}

/** Kills a process a test left behind on purpose, if it still runs. */
export function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
