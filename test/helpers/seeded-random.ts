/** A small deterministic random source, so a failure can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => (s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32;
}
