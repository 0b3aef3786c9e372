/** Did-you-mean: the known name a mistyped word was most likely meant as (commands, states). */

/**
 * The optimal string alignment distance between two words: insertions,
 * deletions, substitutions and swaps of two neighbours each count one, so
 * `lnit` is one edit from `lint`.
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [
    i,
    ...Array<number>(b.length).fill(0),
  ]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The name `word` was most likely meant as: the nearest one at most two
 * edits away whose letters mostly agree (two thirds of the longer word), so
 * `lnit` finds `lint` and `serv` finds `serve`, while `hello` (two edits
 * from `help`) finds nothing. Case does not count. Ties go to the first name.
 */
export function closestName(word: string, names: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(word.toLowerCase(), name.toLowerCase());
    const similarity = 1 - distance / Math.max(word.length, name.length);
    if (distance <= 2 && similarity >= 2 / 3 && (best === undefined || distance < best.distance))
      best = { name, distance };
  }
  return best?.name;
}
