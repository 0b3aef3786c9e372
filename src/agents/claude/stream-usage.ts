import { priceOf } from '../anthropic-prices.js';
import { asObject } from '../json-line.js';
import type { ModelPrice } from '../model-price.js';

/**
 * Anthropic bills a prompt-cache write at a multiple of the model's input
 * price: 1.25 for the 5-minute cache (Claude Code's), 2 for the 1-hour one
 * (the pricing page's "Prompt caching" table).
 */
const CACHE_WRITE_5M = 1.25;
const CACHE_WRITE_1H = 2;

/** A token count as the stream gives it: a finite number of 0 or more, else none. */
const count = (v: unknown): number =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0;

/**
 * What one assistant message's `usage` costs at `price` (USD per million
 * tokens): fresh input, cache writes (the 1-hour ones at their own rate when
 * the usage splits them), cache reads and output.
 */
export function usageCost(usage: unknown, price: ModelPrice): number {
  const u = asObject(usage);
  if (!u) return 0;
  const written = count(u.cache_creation_input_tokens);
  const longer = Math.min(written, count(asObject(u.cache_creation)?.ephemeral_1h_input_tokens));
  const input =
    count(u.input_tokens) + (written - longer) * CACHE_WRITE_5M + longer * CACHE_WRITE_1H;
  return (
    (input * price.input +
      count(u.cache_read_input_tokens) * price.cacheRead +
      count(u.output_tokens) * price.output) /
    1_000_000
  );
}

/**
 * The cost of a turn so far, from the usage its stream carries. Claude Code
 * prints one `assistant` line per content block of a message, each with the
 * message's id and its usage as known then: a message is counted once, at
 * the latest usage its lines gave (a later line's usage replaces an earlier
 * one's). Priced by the table (`price`), since the turn's own total comes
 * only with its result, which a stopped turn never prints.
 */
export class StreamUsage {
  /** Each message's cost by its id (a message without an id is counted as it comes). */
  private readonly byMessage = new Map<string, number>();
  private total = 0;

  constructor(
    private readonly price: (model: string | undefined) => ModelPrice = (m) => priceOf(m).price,
  ) {}

  /**
   * Takes an assistant line's `message`; true when the turn's cost changed.
   * `<synthetic>` messages are Claude Code's own words, which no model was paid for.
   */
  note(message: Record<string, unknown> | undefined): boolean {
    if (!message || message.usage === undefined || message.model === '<synthetic>') return false;
    const model = typeof message.model === 'string' ? message.model : undefined;
    const cost = usageCost(message.usage, this.price(model));
    const id = message.id;
    if (typeof id !== 'string') {
      this.total += cost;
      return cost > 0;
    }
    const before = this.byMessage.get(id) ?? 0;
    this.byMessage.set(id, cost);
    this.total += cost - before;
    return cost !== before;
  }

  /** What the messages seen so far cost (USD). */
  get costUsd(): number {
    return this.total;
  }
}
