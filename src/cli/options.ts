import { availableParallelism } from 'node:os';
import { InvalidArgumentError } from 'commander';

/** Default step parallelism: one per core, at least two. */
export const DEFAULT_MAX_PARALLEL = Math.max(2, availableParallelism());
export const DEFAULT_TIMEOUT_SECONDS = 600;

/** Commander parser for a whole number of at least `min`. */
export function integer(min: number) {
  return (value: string): number => {
    if (!/^\d+$/.test(value.trim()) || Number(value) < min) throw new InvalidArgumentError(`expected a whole number of at least ${min}`);
    return Number(value);
  };
}
