import type { PriceOverride } from '../agents/agent-backend.js';
import { RaymondError } from '../errors.js';

const FIELDS = ['input', 'cached_input', 'output'] as const;

/**
 * `[raymond.prices."MODEL"]`: what a model costs, in USD per million
 * tokens (`input`, `output`, and `cached_input` for prompt-cache hits),
 * over a backend's own table: for a backend that reports tokens only
 * (Codex), what it is charged; for the others, what forecasts guess. A
 * wrong or unknown key is an error, not a warning: it is money.
 */
export function readPrices(table: unknown, path: string): Record<string, PriceOverride> {
  const bad = (message: string): never => {
    throw new RaymondError('ERR_CONFIG', message, { file: path });
  };
  if (table === undefined) return {};
  if (!isPlainTable(table))
    return bad('raymond.prices: expected the table [raymond.prices], a table per model');
  const out: Record<string, PriceOverride> = {};
  for (const [model, row] of Object.entries(table)) {
    const at = `raymond.prices.${JSON.stringify(model)}`;
    if (!isPlainTable(row))
      return bad(`${at}: expected a table { input = USD, output = USD, cached_input = USD }`);
    for (const key of Object.keys(row))
      if (!(FIELDS as readonly string[]).includes(key))
        bad(`${at}.${key}: unknown key (known: ${FIELDS.join(', ')})`);
    for (const key of FIELDS) {
      const v = row[key];
      if (v === undefined && key === 'cached_input') continue;
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
        bad(`${at}.${key} = ${JSON.stringify(v)}: expected USD per million tokens, 0 or more`);
    }
    out[model] = {
      input: row.input as number,
      output: row.output as number,
      ...(row.cached_input === undefined ? {} : { cached_input: row.cached_input as number }),
    };
  }
  return out;
}

function isPlainTable(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}
