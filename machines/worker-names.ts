/**
 * The one owner of forked workers' ids. A fork's workers are named from the
 * parent's id, each target's name and the parent's fork counter as it was
 * persisted before the step, so a step re-run after a crash names its
 * workers the same way.
 */

/** The id of the n-th worker a parent forks: `{parent}_{stem}{n}`. */
export function workerId(parentId: string, target: string, n: number): string {
  const stem = target.replace(/\.(md|sh|bat|ps1)$/i, '').toLowerCase().replace(/[^a-z0-9]/g, '').slice(0, 6);
  return `${parentId}_${stem || 'state'}${n}`;
}

/** Ids of the workers one `<fork>` step creates, in order, given the parent's counter before the step. */
export function nameWorkers(parentId: string, counterBefore: number, targets: readonly string[]): string[] {
  return targets.map((target, i) => workerId(parentId, target, counterBefore + i + 1));
}
