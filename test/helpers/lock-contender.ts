/**
 * A process that races for run locks when its parent says so (over IPC), for
 * test/state/run-lock.test.ts: `{ lock, at }` makes it wait until the epoch
 * millisecond `at`, take the lock and answer whether it got it; it holds a
 * lock it got until `{ release: true }`.
 */
import { acquireLock } from '../../src/state/run-lock.js';
import { RaymondError } from '../../src/errors.js';

type Order = { lock: string; at: number } | { release: true } | { exit: true };

let release: (() => void) | undefined;

process.on('message', (order: Order) => {
  if ('exit' in order) process.exit(0);
  if ('release' in order) {
    release?.();
    release = undefined;
    process.send!({ released: true });
    return;
  }
  // Spin rather than sleep: a timer fires late by a millisecond or more, and the point is the same millisecond.
  while (Date.now() < order.at);
  try {
    release = acquireLock(order.lock, 'race');
    process.send!({ acquired: true });
  } catch (err) {
    process.send!({ acquired: false, code: err instanceof RaymondError ? err.code : String(err) });
  }
});
process.send!({ ready: true });
