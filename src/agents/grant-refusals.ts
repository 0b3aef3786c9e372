import type { Grant } from '../language/grant.js';

/** A grant key a backend cannot honour: the grant's field, its key as written, and why. */
export type GrantRefusal = readonly [field: keyof Grant, key: string, why: string];

/** The first key of `grant` that `backend` refuses, as lint and the run say it. */
export function refusedGrantKey(
  grant: Grant,
  refusals: readonly GrantRefusal[],
  backend: string,
): string | undefined {
  for (const [field, key, why] of refusals)
    if (grant[field] !== undefined)
      return `${key}: the ${backend} backend cannot honour it (${why})`;
  return undefined;
}
