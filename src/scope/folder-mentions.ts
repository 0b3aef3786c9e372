import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * How far a workflow folder is read when looking for words: a state file's
 * folder may be a whole project's, so the walk stops at these.
 */
export const MENTION_LIMITS = {
  /** Folders below the workflow's own. */
  depth: 3,
  files: 2000,
  /** A bigger file is data, not a program. */
  fileBytes: 1024 * 1024,
  totalBytes: 32 * 1024 * 1024,
} as const;

/**
 * Whether a file in `dir` or in a folder below it (not hidden ones, nor
 * `node_modules`) holds one of `words`: a helper a script sources or runs
 * from `lib/` counts as the workflow's. Reads at most MENTION_LIMITS; a file
 * it cannot read is skipped (the workflow could not run it either).
 */
export async function folderMentions(dir: string, words: readonly string[]): Promise<boolean> {
  let files = 0;
  let bytes = 0;
  let level = [dir];
  for (let depth = 0; depth <= MENTION_LIMITS.depth && level.length > 0; depth++) {
    const next: string[] = [];
    for (const folder of level) {
      const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
      for (const e of entries) {
        if (e.name.startsWith('.') || e.name === 'node_modules') continue;
        const path = join(folder, e.name);
        if (e.isDirectory()) {
          next.push(path);
          continue;
        }
        if (++files > MENTION_LIMITS.files) return false;
        const size = await stat(path).then(
          (s) => (s.isFile() ? s.size : Infinity),
          () => Infinity,
        );
        if (size > MENTION_LIMITS.fileBytes) continue;
        bytes += size;
        if (bytes > MENTION_LIMITS.totalBytes) return false;
        const text = await readFile(path).catch(() => undefined);
        if (text && words.some((w) => text.includes(w))) return true;
      }
    }
    level = next;
  }
  return false;
}
