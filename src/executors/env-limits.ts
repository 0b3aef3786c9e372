/** How much one process's environment may hold, as the operating system counts it. */
export interface EnvLimits {
  /** Bytes of one `NAME=value` string, with its terminating NUL. */
  entryBytes: number;
  /** Bytes of every variable Raymond sets for one step, together. */
  totalBytes: number;
}

/**
 * Linux refuses to start a program (E2BIG) when one `NAME=value` string is
 * over 128 KiB (MAX_ARG_STRLEN, NUL included) or argv and the environment
 * together are over ARG_MAX (a quarter of the stack limit: 2 MB by default).
 * Raymond's own variables get at most 1 MiB of that; the inherited
 * environment and the arguments keep the rest. Windows allows 32,767
 * characters in a variable; a UTF-8 byte count is never below that count.
 */
export const ENV_LIMITS: EnvLimits = process.platform === 'win32' ? { entryBytes: 32_767, totalBytes: 1 << 20 } : { entryBytes: 128 * 1024, totalBytes: 1 << 20 };

/** Bytes of `NAME=value` and its NUL. */
function entrySize(name: string, value: string): number {
  return Buffer.byteLength(name) + Buffer.byteLength(value) + 2;
}

/**
 * The variables whose values cannot be passed in the environment and go to
 * files instead: each value whose `NAME=value` alone is over the limit or that
 * holds a NUL character (which no variable can), then, while the rest are
 * over the total, the largest of them. Every other value stays a variable.
 */
export function valuesForFiles(env: Readonly<Record<string, string | undefined>>, limits: EnvLimits = ENV_LIMITS): Set<string> {
  const files = new Set<string>();
  const kept: Array<{ name: string; size: number }> = [];
  let total = 0;
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const size = entrySize(name, value);
    if (size > limits.entryBytes || value.includes('\0')) files.add(name);
    else {
      kept.push({ name, size });
      total += size;
    }
  }
  if (total > limits.totalBytes) {
    kept.sort((a, b) => b.size - a.size);
    for (const { name, size } of kept) {
      if (total <= limits.totalBytes) break;
      files.add(name);
      total -= size;
    }
  }
  return files;
}
