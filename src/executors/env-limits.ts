/** How much one process's environment may hold, as the operating system counts it. */
export interface EnvLimits {
  /** Bytes of one `NAME=value` string, with its terminating NUL. */
  entryBytes: number;
  /** Bytes of every variable Raymond sets for one step, together, with what each costs besides its text. */
  totalBytes: number;
}

/**
 * Linux refuses to start a program (E2BIG) when one `NAME=value` string is
 * over 128 KiB (MAX_ARG_STRLEN, NUL included) or argv and the environment
 * together are over ARG_MAX (a quarter of the stack limit: 2 MB by default),
 * counting each string's pointer too. Raymond's own variables get at most
 * 1 MiB of that; the inherited environment and the arguments keep the rest.
 * Windows allows 32,767 characters in a variable; a UTF-8 byte count is
 * never below that count.
 */
export const ENV_LIMITS: EnvLimits =
  process.platform === 'win32'
    ? { entryBytes: 32_767, totalBytes: 1 << 20 }
    : { entryBytes: 128 * 1024, totalBytes: 1 << 20 };

/** What each variable costs besides its text: its pointer in the environment array, which Linux counts toward ARG_MAX. */
export const POINTER_BYTES = 8;

/** Bytes of `NAME=value` and its NUL. */
export function entrySize(name: string, value: string): number {
  return Buffer.byteLength(name) + Buffer.byteLength(value) + 2;
}

/** Where a step's variables go, and what they cost once there. */
export interface EnvPlan {
  /** The variables whose values go to files, each leaving a `NAME_FILE` variable. */
  files: Set<string>;
  /** What Raymond's variables then cost, the `NAME_FILE` ones and every pointer counted. */
  bytes: number;
  /** A name too long for any variable, even as `NAME_FILE`: nothing can pass it. */
  tooLong?: string;
}

/**
 * Which values cannot be passed in the environment and go to files instead:
 * each value whose `NAME=value` alone is over the limit or that holds a NUL
 * character (which no variable can), then, while the whole is over the
 * total, those whose move saves the most. A moved value still costs its
 * `NAME_FILE=path` variable (`filePathBytes` being the longest path a value
 * file has), so thousands of small variables may not fit however they are
 * placed: `bytes` then stays over the total, for the caller to refuse.
 */
export function planEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  limits: EnvLimits,
  filePathBytes: number,
): EnvPlan {
  const files = new Set<string>();
  const fileEntry = (name: string) => Buffer.byteLength(name) + '_FILE='.length + filePathBytes + 1;
  const kept: Array<{ name: string; saves: number }> = [];
  let bytes = 0;
  let tooLong: string | undefined;
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const size = entrySize(name, value);
    if (size > limits.entryBytes || value.includes('\0')) {
      files.add(name);
      bytes += fileEntry(name) + POINTER_BYTES;
      if (fileEntry(name) > limits.entryBytes) tooLong ??= name;
    } else {
      kept.push({ name, saves: size - fileEntry(name) });
      bytes += size + POINTER_BYTES;
    }
  }
  if (bytes > limits.totalBytes) {
    kept.sort((a, b) => b.saves - a.saves);
    for (const { name, saves } of kept) {
      if (bytes <= limits.totalBytes || saves <= 0) break;
      files.add(name);
      bytes -= saves;
    }
  }
  return { files, bytes, ...(tooLong !== undefined ? { tooLong } : {}) };
}
