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

export const DEFAULT_BUDGET_USD = 10;

/** Commander parser for a non-negative amount of dollars. */
export function money(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected an amount in USD, 0 or more (0 = unlimited)');
  return n;
}
