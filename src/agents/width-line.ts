import { RaymondError } from '../errors.js';

/** A turn waiting for its place in an account's width: `go` gives it the place, `fail` refuses it. */
export interface Waiter<Place> {
  go: (place: Place) => void;
  fail: (err: Error) => void;
}

/**
 * Puts a turn at the end of `line` until it is given its place (`taken` is
 * told it first) or refused. Aborted, it leaves the line and throws
 * ERR_AGENT_FAILED `stopped`. The width (AccountWidth, SharedWidth) gives
 * places from the head of the line as they come free.
 */
export function waitInLine<Place>(
  line: Array<Waiter<Place>>,
  signal: AbortSignal,
  taken: (place: Place) => void,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const waiter: Waiter<Place> = {
      go: (place) => {
        signal.removeEventListener('abort', stop);
        taken(place);
        resolve();
      },
      fail: (err) => {
        signal.removeEventListener('abort', stop);
        reject(err);
      },
    };
    const stop = () => {
      const at = line.indexOf(waiter);
      if (at >= 0) line.splice(at, 1);
      reject(new RaymondError('ERR_AGENT_FAILED', 'stopped'));
    };
    if (signal.aborted) return stop();
    signal.addEventListener('abort', stop, { once: true });
    line.push(waiter);
  });
}
