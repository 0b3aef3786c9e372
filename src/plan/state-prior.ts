import type { PriceOverrides } from '../agents/agent-backend.js';
import type { WorkflowNode } from '../analysis/workflow-node.js';
import type { Forecast } from '../history/history-types.js';
import { parseStateSource } from '../language/frontmatter.js';
import { renderTemplate } from '../language/render.js';
import type { PricedModel } from '../agents/model-price.js';
import { backendOf } from '../agents/registry/registry.js';

/**
 * The prior: what a state is expected to cost and take when the history has
 * never seen it run. Every figure here is a stated guess, and `raymond plan`
 * marks the states it prices this way; three runs of history replace it.
 */

/** Characters per token of English prose and code, the usual rule of thumb. */
export const CHARS_PER_TOKEN = 4;
/**
 * Tokens every model request of Claude Code carries besides the state's
 * prompt: its system prompt and tool definitions (about 15,000 tokens).
 * They stay in the prompt cache between requests, so they are priced as
 * cache reads.
 */
export const SYSTEM_PROMPT_TOKENS = 15_000;
/** Output tokens of one model request: a reply, or a tool call and its reasoning. */
export const OUTPUT_TOKENS_PER_TURN = 1_000;
/** Model requests one markdown step makes (its reply plus a few tool calls). */
export const DEFAULT_TURNS = 5;
/** Wall time of one model request, tools included. */
export const SECONDS_PER_TURN = 10;
/** How far above its expected figure a guess's high (p90) figure is put. */
export const GUESS_P90_FACTOR = 3;
/** Wall time of a script step: a second, and three at the high end. */
export const SCRIPT_SECONDS = 1;

/** A state's prior, with what it was computed from. */
export interface StatePrior {
  forecast: Forecast;
  /** The model the state would run with (undefined: the agent CLI's default), and its price row. */
  model: string | undefined;
  priced?: PricedModel;
  /** Tokens of the state's prompt as rendered (about one per CHARS_PER_TOKEN characters). */
  promptTokens: number;
}

/** The model a markdown state runs with: its frontmatter's, else the run's `--model`. */
export function modelOf(node: WorkflowNode, runModel: string | undefined): string | undefined {
  return node.policy.model ?? runModel;
}

/** The prompt of a markdown state as a run would send it; the entry state's `{{input}}` is the run's input. */
function promptText(node: WorkflowNode, input: string | undefined): string {
  let body = node.text;
  try {
    body = parseStateSource(node.text, node.file).body;
  } catch {
    // A frontmatter lint reports: its text is still about the size of the prompt.
  }
  return node.entry && input !== undefined ? renderTemplate(body, { input, result: input }) : body;
}

/** The cost of one model request carrying `promptTokens` of prompt, at `price`. */
export function turnCost(promptTokens: number, priced: PricedModel): number {
  const { price } = priced;
  return (
    (promptTokens * price.input +
      SYSTEM_PROMPT_TOKENS * price.cacheRead +
      OUTPUT_TOKENS_PER_TURN * price.output) /
    1_000_000
  );
}

/**
 * The prior of one step of `node`: a script is free and takes a second; a
 * markdown state costs DEFAULT_TURNS requests of its prompt (plus Claude
 * Code's system prompt) at its model's price, and takes SECONDS_PER_TURN
 * each; the high figure is GUESS_P90_FACTOR times that.
 */
export function statePrior(
  node: WorkflowNode,
  opts: { model?: string; input?: string; prices?: PriceOverrides } = {},
): StatePrior {
  if (node.kind === 'script') {
    const ms = SCRIPT_SECONDS * 1000;
    return {
      forecast: { p50Usd: 0, p90Usd: 0, p50Ms: ms, p90Ms: ms * 3, basis: 'free' },
      model: undefined,
      promptTokens: 0,
    };
  }
  const model = modelOf(node, opts.model);
  // The config's [raymond.prices] over the backend's table, as a run charges a CLI that reports tokens.
  const priced = backendOf(node.backend).priceOf(model, opts.prices);
  const promptTokens = Math.ceil(promptText(node, opts.input).length / CHARS_PER_TOKEN);
  const usd = turnCost(promptTokens, priced) * DEFAULT_TURNS;
  const ms = SECONDS_PER_TURN * 1000 * DEFAULT_TURNS;
  return {
    forecast: {
      p50Usd: usd,
      p90Usd: usd * GUESS_P90_FACTOR,
      p50Ms: ms,
      p90Ms: ms * GUESS_P90_FACTOR,
      basis: 'guess',
    },
    model,
    priced,
    promptTokens,
  };
}
