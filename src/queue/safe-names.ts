import { RaymondError } from '../errors.js';

/**
 * A name that is safe as one path segment: letters, digits, `.`, `_` and
 * `-`, not starting with a dot, at most 200 characters. Session ids (UUIDs)
 * and pi's `<time>_<id>.jsonl` file names fit; `..`, `/`, `\` and NUL do not.
 */
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

/** Whether a name taken from the queue can be joined into a path without leaving its folder. */
export function isSafeSegment(name: unknown): name is string {
  return typeof name === 'string' && SEGMENT.test(name);
}

/**
 * A name from the queue (a session id, a transcript's file name, a blob's
 * hash) checked before it becomes part of a path: anything else is refused,
 * naming what it was for.
 */
export function safeSegment(name: unknown, what: string, where?: string): string {
  if (isSafeSegment(name)) return name;
  const shown =
    JSON.stringify(
      typeof name === 'string' && name.length > 80 ? `${name.slice(0, 80)}...` : name,
    ) ?? String(name);
  throw new RaymondError(
    'ERR_QUEUE_REFUSED',
    `${what} ${shown} is not a plain file name (letters, digits, ".", "_", "-"): refused`,
    where === undefined ? {} : { file: where },
  );
}
