/**
 * The one owner of forked workers' ids. A fork's workers are named from the
 * parent's id, each target's name and the parent's fork counter as it was
 * persisted before the step, so a step re-run after a crash names its
 * workers the same way.
 *
 * Ids are unique by construction: a stem holds only `a-z0-9` and never ends
 * in a digit, so `{stem}{n}` splits back into its stem and its number, and a
 * parent's counter never repeats a number. Stems hold no `_`, so the last `_`
 * of an id separates the parent's id, and two parents never make one id.
 */

/** The id part a target gives: up to six letters and digits, lower case, no trailing digits. */
export function workerStem(target: string): string {
  const six = target
    .replace(/\.(md|sh|bat|ps1)$/i, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .slice(0, 6);
  return six.replace(/\d+$/, '') || 'state';
}

/**
 * The longest id a worker gets. An id becomes a folder name (its task
 * folder, a `--worktrees off` folder) and part of a branch name, and a file
 * name may hold at most 255 bytes: without a bound, a chain of forks about
 * 40 deep would fail the run for good.
 */
export const MAX_WORKER_ID_LENGTH = 100;

/** 64-bit FNV-1a of a text, in 16 hex digits: a short, stable stand-in for a long parent id. */
function hash64(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, '0');
}

/**
 * The id of the n-th worker a parent forks: `{parent}_{stem}{n}`. Where that
 * would pass MAX_WORKER_ID_LENGTH, the parent's part is its first part and a
 * hash of the whole parent id, joined by `-` (`main-1f3a...`): ids are
 * otherwise letters, digits and `_`, so such a part never equals a real id,
 * and two parents give one part only if their hashes collide.
 */
export function workerId(parentId: string, target: string, n: number): string {
  const own = `_${workerStem(target)}${n}`;
  if (parentId.length + own.length <= MAX_WORKER_ID_LENGTH) return `${parentId}${own}`;
  return `${parentId.split(/[-_]/)[0]!.slice(0, 16)}-${hash64(parentId)}${own}`;
}

/** Ids of the workers one `<fork>` step creates, in order, given the parent's counter before the step. */
export function nameWorkers(
  parentId: string,
  counterBefore: number,
  targets: readonly string[],
): string[] {
  return targets.map((target, i) => workerId(parentId, target, counterBefore + i + 1));
}

/** Longer runs of digits cannot be a counter value (it stays a safe integer). */
const MAX_DIGITS = 15;

/**
 * The number at the end of an id shaped like a worker's (`{parent}_{letters
 * and digits}`), with its parent: `main_w11` is `main`'s 11, whatever rule
 * named it.
 */
export function workerNumber(id: string): { parentId: string; n: number } | undefined {
  const m = /^(.+)_[a-z0-9]*?(\d+)$/.exec(id);
  if (!m || m[2]!.length > MAX_DIGITS) return undefined;
  return { parentId: m[1]!, n: Number(m[2]) };
}

/**
 * The lowest fork counter each parent may hold given the ids a run already
 * has. A run named by an older rule (`{first 6 letters}{n}`, digits and all)
 * may hold `main_w11` for the first `W1` worker, which the current rule
 * would give the eleventh `W` worker. A counter at least as high as every
 * number its parent's ids end with makes every new id end with a higher
 * number than any id of that parent, so none is ever made twice. On runs
 * named by the current rule the counters are already that high.
 */
export function forkCounterFloors(ids: Iterable<string>): Map<string, number> {
  const floors = new Map<string, number>();
  for (const id of ids) {
    const w = workerNumber(id);
    // A shortened parent (`main-1f3a..._w2`) is no agent's id, and the current rule named it: no floor.
    if (w && !w.parentId.includes('-') && w.n > (floors.get(w.parentId) ?? 0))
      floors.set(w.parentId, w.n);
  }
  return floors;
}
