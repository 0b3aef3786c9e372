/**
 * What OpenAI models cost, for the Codex backend. Codex reports each turn's
 * tokens, never dollars, so Raymond charges those tokens at this table's
 * prices: a stale row makes a bill wrong (not only a guess), which is why the
 * config's `[raymond.prices]` can override any model, and why a model the
 * table does not know costs $0, marked, rather than another model's price.
 */
import type { ModelPrice, PricedModel } from '../model-price.js';

/**
 * The day the table was checked: OpenAI's published API prices, as the
 * author knew them that day, from OpenAI's models pages
 * (developers.openai.com/api/docs/models/MODEL) and pricing page
 * (developers.openai.com/api/docs/pricing), read from indexed copies, not
 * live. Standard tier, short prompts only: a request over 272K input tokens
 * (2x input, 1.5x output on the newest models), Batch, Flex, Fast or priority
 * processing and regional processing are not priced; cache writes (Codex's
 * `cache_write_input_tokens`, 1.25x input on the GPT-6 models) cost fresh input.
 */
export const CODEX_PRICES_TAKEN = '2026-11-27';

interface Row {
  label: string;
  /** Matched against the whole model id, without a `provider/` prefix or a dated suffix. */
  id: RegExp;
  price: ModelPrice;
}

/** USD per million tokens: fresh input, cached input, output. */
const usd = (input: number, cacheRead: number, output: number): ModelPrice => ({
  input,
  cacheRead,
  output,
});

const GPT_6_2_SOL: Row = { label: 'GPT-6.2 Sol', id: /^gpt-6\.2-sol$/, price: usd(2, 0.1, 10) };

/**
 * First match wins. Each id is anchored at both ends, so a variant the table
 * does not list (`gpt-5-pro`, `gpt-6.2-sol-fast`) is unknown rather than
 * charged at its base model's price.
 */
const ROWS: Row[] = [
  { label: 'GPT-6.2 Astra', id: /^gpt-6\.2-astra$/, price: usd(8, 0.4, 40) },
  GPT_6_2_SOL,
  { label: 'GPT-6.1 Sol', id: /^gpt-6\.1-sol$/, price: usd(2, 0.1, 10) },
  { label: 'GPT-6.1 Terra', id: /^gpt-6\.1-terra$/, price: usd(1, 0.05, 5) },
  { label: 'GPT-6 Astra', id: /^gpt-6-astra$/, price: usd(10, 1, 50) },
  { label: 'GPT-6 Sol', id: /^gpt-6-sol$/, price: usd(2, 0.2, 10) },
  { label: 'GPT-6 Luna', id: /^gpt-6-luna$/, price: usd(0.1, 0.01, 0.5) },
  // OpenAI's promotional price, said to hold "at least through 2026-11-21"; the list price was $5 / $0.50 / $30.
  { label: 'GPT-5.6 Sol', id: /^gpt-5\.6(-sol)?$/, price: usd(4, 0.4, 20) },
  { label: 'GPT-5.6 Terra', id: /^gpt-5\.6-terra$/, price: usd(2, 0.2, 12) },
  { label: 'GPT-5.6 Luna', id: /^gpt-5\.6-luna$/, price: usd(0.2, 0.02, 1.2) },
  { label: 'GPT-5.5', id: /^gpt-5\.5$/, price: usd(5, 0.5, 30) },
  { label: 'GPT-5.4', id: /^gpt-5\.4$/, price: usd(2.5, 0.25, 15) },
  { label: 'GPT-5.4 mini', id: /^gpt-5\.4-mini$/, price: usd(0.75, 0.075, 4.5) },
  { label: 'GPT-5.4 nano', id: /^gpt-5\.4-nano$/, price: usd(0.2, 0.02, 1.25) },
  {
    label: 'GPT-5.2, GPT-5.2-5.3-Codex',
    id: /^gpt-5\.2(-codex)?$|^gpt-5\.3-codex$/,
    price: usd(1.75, 0.175, 14),
  },
  { label: 'GPT-5.1-Codex-Mini', id: /^gpt-5\.1-codex-mini$/, price: usd(0.25, 0.025, 2) },
  {
    label: 'GPT-5, GPT-5.1 (and -Codex)',
    id: /^gpt-5(-codex|\.1|\.1-codex|\.1-codex-max)?$/,
    price: usd(1.25, 0.125, 10),
  },
  { label: 'GPT-5 mini', id: /^gpt-5-mini$/, price: usd(0.25, 0.025, 2) },
  { label: 'GPT-5 nano', id: /^gpt-5-nano$/, price: usd(0.05, 0.005, 0.4) },
  { label: 'o3', id: /^o3$/, price: usd(2, 0.5, 8) },
  { label: 'o4-mini', id: /^o4-mini$/, price: usd(1.1, 0.275, 4.4) },
  { label: 'codex-mini-latest', id: /^codex-mini-latest$/, price: usd(1.5, 0.375, 6) },
  { label: 'GPT-4.1', id: /^gpt-4\.1$/, price: usd(2, 0.5, 8) },
  { label: 'GPT-4.1 mini', id: /^gpt-4\.1-mini$/, price: usd(0.4, 0.1, 1.6) },
  { label: 'GPT-4.1 nano', id: /^gpt-4\.1-nano$/, price: usd(0.1, 0.025, 0.4) },
];

/**
 * The model Codex 0.171 runs when none is named (the first of its built-in
 * catalogue, and what it sent a provider when run without `-m`). A user's own
 * `model =` in their Codex config.toml changes it, which Raymond cannot see.
 */
const CODEX_DEFAULT_MODEL = 'gpt-6.2-sol';

/** The id the table matches: no `provider/` prefix, lower case, no dated snapshot suffix. */
function tableId(model: string): string {
  return model
    .slice(model.lastIndexOf('/') + 1)
    .toLowerCase()
    .replace(/-(\d{4}-\d\d-\d\d|\d{8})$/, '');
}

/**
 * The price of `model` as a state or the run names it for Codex: the
 * config's override for it (by its exact id, else by its table id), else the
 * table's row (`gpt-5-2025-08-07` and `openai/gpt-5` are `gpt-5`), else
 * nothing: $0, `unknown`, labelled `MODEL (no price)`. No model is Codex's
 * default model, priced (and overridden) as that model.
 */
export function codexPriceOf(
  model: string | undefined,
  overrides?: Readonly<Record<string, { input: number; cached_input?: number; output: number }>>,
): PricedModel {
  const named = model ?? CODEX_DEFAULT_MODEL;
  const id = tableId(named);
  const key = [named, id].find((k) => overrides !== undefined && Object.hasOwn(overrides, k));
  const override = key === undefined ? undefined : overrides?.[key];
  if (override) {
    // A config that gives no cached price gets no discount: a bill too high, never too low.
    const price = usd(override.input, override.cached_input ?? override.input, override.output);
    return { label: `${named} (config price)`, price, unknown: false };
  }
  const row = ROWS.find((r) => r.id.test(id));
  if (row) return { label: row.label, price: row.price, unknown: false };
  return { label: `${named} (no price)`, price: usd(0, 0, 0), unknown: true };
}

/**
 * The USD cost of one turn's usage as Codex reports it. OpenAI's
 * `input_tokens` include the cached ones (`input_tokens_details.cached_tokens`,
 * Codex's `cached_input_tokens`), so only the rest is fresh input; and
 * `output_tokens` already include the reasoning tokens
 * (`output_tokens_details.reasoning_tokens` is a breakdown of them, and
 * OpenAI's reasoning guide bills reasoning tokens as output), so Codex's
 * `reasoning_output_tokens` are never added again.
 */
export function codexCost(
  usage: { input_tokens: number; cached_input_tokens: number; output_tokens: number },
  priced: PricedModel,
): number {
  const { input, cacheRead, output } = priced.price;
  const cached = Math.min(usage.cached_input_tokens, usage.input_tokens);
  return (
    ((usage.input_tokens - cached) * input + cached * cacheRead + usage.output_tokens * output) /
    1_000_000
  );
}
