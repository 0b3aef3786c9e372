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
  const six = target.replace(/\.(md|sh|bat|ps1)$/i, '').toLowerCase().replace(/[^a-z0-9]/g, '').slice(0, 6);
  return six.replace(/\d+$/, '') || 'state';
}

/** The id of the n-th worker a parent forks: `{parent}_{stem}{n}`. */
export function workerId(parentId: string, target: string, n: number): string {
  return `${parentId}_${workerStem(target)}${n}`;
}

/** Ids of the workers one `<fork>` step creates, in order, given the parent's counter before the step. */
export function nameWorkers(parentId: string, counterBefore: number, targets: readonly string[]): string[] {
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
    if (w && w.n > (floors.get(w.parentId) ?? 0)) floors.set(w.parentId, w.n);
  }
  return floors;
}
