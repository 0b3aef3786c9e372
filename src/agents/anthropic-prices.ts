import type { ModelPrice, PricedModel } from './model-price.js';

/**
 * What Claude models cost, for the forecasts of states that have no history
 * yet. Claude Code reports each turn's true cost, so this table is used only
 * for guesses: a wrong or stale row makes a guess off, never a bill.
 */

/** The day the table was copied, from Anthropic's pricing page (platform.claude.com/docs/en/about-claude/pricing, "Model pricing") and its models' overview pages. */
export const PRICES_TAKEN = '2026-11-26';

interface Row {
  label: string;
  /** Matched against the model id, without a `[1m]` suffix. */
  id: RegExp;
  price: ModelPrice;
}

const SONNET_5_5: Row = {
  label: 'Claude Sonnet 5.5',
  id: /^claude-sonnet-5-5\b/,
  price: { input: 2, cacheRead: 0.1, output: 10 },
};
const OPUS_5_5: Row = {
  label: 'Claude Opus 5.5',
  id: /^claude-opus-5-5\b/,
  price: { input: 4, cacheRead: 0.2, output: 20 },
};
// Haiku 5.5's lower band (prompts up to 100,000 tokens); longer prompts pay five times as much.
const HAIKU_5_5: Row = {
  label: 'Claude Haiku 5.5',
  id: /^claude-haiku-5-5\b/,
  price: { input: 0.1, cacheRead: 0.01, output: 0.5 },
};

/** First match wins: a newer model's row comes before the family's older ones. */
const ROWS: Row[] = [
  {
    label: 'Claude Fable 5.1',
    id: /^claude-(fable|mythos)-5-1\b/,
    price: { input: 10, cacheRead: 0.25, output: 50 },
  },
  {
    label: 'Claude Fable 5',
    id: /^claude-(fable|mythos)-5\b/,
    price: { input: 10, cacheRead: 1, output: 50 },
  },
  OPUS_5_5,
  {
    label: 'Claude Opus 4.5-5',
    id: /^claude-opus-(5|4-[5-9])\b/,
    price: { input: 5, cacheRead: 0.5, output: 25 },
  },
  {
    label: 'Claude Opus 3-4.1',
    id: /^claude-(opus-4|3-opus)\b/,
    price: { input: 15, cacheRead: 1.5, output: 75 },
  },
  SONNET_5_5,
  {
    label: 'Claude Sonnet 5',
    id: /^claude-sonnet-5\b/,
    price: { input: 2, cacheRead: 0.2, output: 10 },
  },
  {
    label: 'Claude Sonnet 3.5-4.6',
    id: /^claude-(sonnet-4|3-[57]-sonnet)\b/,
    price: { input: 3, cacheRead: 0.3, output: 15 },
  },
  HAIKU_5_5,
  {
    label: 'Claude Haiku 4.5',
    id: /^claude-haiku-4-5\b/,
    price: { input: 1, cacheRead: 0.1, output: 5 },
  },
  {
    label: 'Claude Haiku 3.5',
    id: /^claude-3-5-haiku\b/,
    price: { input: 0.8, cacheRead: 0.08, output: 4 },
  },
  {
    label: 'Claude Haiku 3',
    id: /^claude-3-haiku\b/,
    price: { input: 0.25, cacheRead: 0.03, output: 1.25 },
  },
];

/** Claude Code's aliases name the family's latest model (as of PRICES_TAKEN). */
const ALIASES: Record<string, Row> = { opus: OPUS_5_5, sonnet: SONNET_5_5, haiku: HAIKU_5_5 };

/** The price of a model the table does not know, or of none named (the agent CLI's default): Sonnet's. */
const DEFAULT_ROW = SONNET_5_5;

/**
 * The price of `model` as a state or the run names it: an alias, a full
 * Claude model id (`claude-sonnet-4-5-20250929`, `claude-opus-4-6[1m]`),
 * or a pi model (`provider/id`, priced by the table when its id names a
 * Claude model). Anything else, and no model at all, gets the default
 * (Sonnet's) price, marked `unknown` when a model was named.
 */
export function priceOf(model: string | undefined): PricedModel {
  if (model === undefined)
    return { label: DEFAULT_ROW.label, price: DEFAULT_ROW.price, unknown: false };
  const id = model
    .slice(model.lastIndexOf('/') + 1)
    .replace(/\[[a-z0-9]+\]$/i, '')
    .toLowerCase();
  const row = ALIASES[id] ?? ROWS.find((r) => r.id.test(id));
  if (row) return { label: row.label, price: row.price, unknown: false };
  return { label: `${DEFAULT_ROW.label} (default)`, price: DEFAULT_ROW.price, unknown: true };
}
