import { codexCost, type codexPriceOf } from './codex-prices.js';
import type { CodexUsage } from './codex-stream.js';

/** A model's price as the price table gives it. */
type PricedModel = ReturnType<typeof codexPriceOf>;

/** What a turn cost, as the executor reckoned it from codex's tokens. */
export interface TurnSpend {
  costUsd: number;
  /** The thread's total so far, for the next turn's base. */
  sessionTotal: number | null;
  tokens: number;
}

/** No tokens: where a fresh thread starts. */
export const NO_USAGE: CodexUsage = {
  input_tokens: 0,
  cached_input_tokens: 0,
  output_tokens: 0,
  reasoning_output_tokens: 0,
};

const minus = (a: CodexUsage, b: CodexUsage): CodexUsage => ({
  input_tokens: Math.max(0, a.input_tokens - b.input_tokens),
  cached_input_tokens: Math.max(0, a.cached_input_tokens - b.cached_input_tokens),
  output_tokens: Math.max(0, a.output_tokens - b.output_tokens),
  reasoning_output_tokens: Math.max(0, a.reasoning_output_tokens - b.reasoning_output_tokens),
});

/** Tokens in and out (cached input is part of the input, reasoning part of the output). */
/** The turn's own usage: the end's less the thread's before it (the end's when that is not known). */
export function ownUsage(
  start: CodexUsage | undefined,
  end: CodexUsage | undefined,
): CodexUsage | undefined {
  return end === undefined ? undefined : start ? minus(end, start) : end;
}

const tokensOf = (u: CodexUsage) => u.input_tokens + u.output_tokens;

/**
 * What one turn cost. codex reports tokens only, and cumulatively over the
 * thread: a resumed thread's `turn.completed` counts its earlier turns, and
 * a fork's counts its parent's whole history (measured on 0.171: a fork of a
 * 3,000-token thread whose own turn took 3,000 reported 6,000). So the
 * turn's own tokens are the end's less the thread's usage before the turn
 * (`start`: the last `token_count` of the rollout it continued or forked,
 * none for a fresh thread), priced at the turn's model; the thread's total
 * is the end's, priced the same. Without a `start` (the rollout is not on
 * this machine) the turn is the total less `costBase`, the session's last
 * known total, or the whole total when there is none. A model without a
 * price costs nothing (the executor warns once).
 */
export function turnSpend(
  start: CodexUsage | undefined,
  end: CodexUsage | undefined,
  priced: PricedModel,
  costBase: number | undefined,
): TurnSpend {
  if (end === undefined) return { costUsd: 0, sessionTotal: null, tokens: 0 };
  const own = ownUsage(start, end)!;
  const tokens = tokensOf(own);
  if (priced.unknown) return { costUsd: 0, sessionTotal: 0, tokens };
  const sessionTotal = codexCost(end, priced);
  const costUsd = start
    ? codexCost(own, priced)
    : costBase !== undefined
      ? Math.max(0, sessionTotal - costBase)
      : sessionTotal;
  return { costUsd, sessionTotal, tokens };
}
