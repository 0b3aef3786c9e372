import { setTimeout as sleep } from 'node:timers/promises';
import { commandLabel, urlLabel } from './hook-spec.js';
import { postUrlHook, runCommandHook, type AttemptOptions } from './deliver.js';
import type { Notification } from './notification.js';

/** How long one attempt may take: a command is killed, a request dropped. */
export const HOOK_TIMEOUT_MS = 10_000;

/** Waits before the second and third attempts: three attempts in all. */
export const RETRY_DELAYS_MS: readonly number[] = [1_000, 2_000];

/**
 * The longest `close()` waits for deliveries still going when the run has
 * ended: a hook that hangs must not hold the command's exit for long.
 */
export const CLOSE_BOUND_MS = 15_000;

export interface NotifierOptions {
  /** Commands to run, each as argv. */
  commands: string[][];
  /** URLs to POST to. */
  urls: string[];
  /** Shows one line about a hook that failed (the caller adds its prefix). */
  warn: (line: string) => void;
  /** Tests shorten the waits; the defaults are the constants above. */
  retry?: { delaysMs?: readonly number[]; timeoutMs?: number; closeBoundMs?: number };
}

export interface Notifier {
  /** Queues a notification for every hook and returns at once; it never throws. */
  send(n: Notification): void;
  /** Waits for the deliveries still going, at most CLOSE_BOUND_MS, then gives up on the rest with one line. */
  close(): Promise<void>;
}

interface Hook {
  label: string;
  attempt: (json: string, opts: AttemptOptions) => Promise<string | undefined>;
  /** The end of this hook's queue: deliveries to one hook go in order. */
  queue: Promise<void>;
}

/**
 * Tells a run's events to the user's hooks: commands run without a shell,
 * URLs get a POST. A failed attempt is tried again after a pause, and a
 * delivery that failed every time is one warning line; a hook never fails,
 * stops or delays the run.
 */
export function createNotifier(options: NotifierOptions): Notifier {
  const delays = options.retry?.delaysMs ?? RETRY_DELAYS_MS;
  const timeoutMs = options.retry?.timeoutMs ?? HOOK_TIMEOUT_MS;
  const closeBoundMs = options.retry?.closeBoundMs ?? CLOSE_BOUND_MS;
  // Aborted when close() gives up: running commands are killed, requests and pauses dropped.
  const giveUp = new AbortController();
  let pending = 0;
  const hooks: Hook[] = [
    ...options.commands.map((argv) => ({
      label: commandLabel(argv),
      attempt: (json: string, o: AttemptOptions) => runCommandHook(argv, json, o),
      queue: Promise.resolve(),
    })),
    ...options.urls.map((url) => ({
      label: `POST ${urlLabel(url)}`,
      attempt: (json: string, o: AttemptOptions) => postUrlHook(url, json, o),
      queue: Promise.resolve(),
    })),
  ];

  async function deliver(hook: Hook, json: string): Promise<void> {
    let reason: string | undefined;
    for (let attempt = 0; attempt <= delays.length; attempt++) {
      if (attempt > 0)
        await sleep(delays[attempt - 1], undefined, { signal: giveUp.signal }).catch(() => {});
      if (giveUp.signal.aborted) return;
      reason = await hook
        .attempt(json, { timeoutMs, signal: giveUp.signal })
        .catch((err: unknown) => (err instanceof Error ? err.message : String(err)));
      if (reason === undefined || giveUp.signal.aborted) return;
    }
    const attempts = delays.length + 1;
    options.warn(
      `notify: ${hook.label}: ${reason} after ${attempts} attempt${attempts === 1 ? '' : 's'}`,
    );
  }

  return {
    send(n) {
      if (giveUp.signal.aborted) return;
      const json = JSON.stringify(n);
      for (const hook of hooks) {
        pending++;
        // deliver() does not throw; a throwing warn must not break the queue either.
        hook.queue = hook.queue
          .then(() => deliver(hook, json))
          .catch(() => {})
          .finally(() => pending--);
      }
    },
    async close() {
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<'late'>(
        (resolve) => (timer = setTimeout(() => resolve('late'), closeBoundMs)),
      );
      const done = Promise.all(hooks.map((h) => h.queue)).then(() => 'done' as const);
      const outcome = await Promise.race([done, bound]);
      clearTimeout(timer);
      if (outcome === 'late') {
        const left = pending;
        giveUp.abort();
        options.warn(
          `notify: gave up on ${left} notification${left === 1 ? '' : 's'} still being delivered after ${closeBoundMs / 1000} s`,
        );
        // Killed and aborted, the deliveries end at once; waiting for them leaves nothing running.
        await done;
      }
    },
  };
}
