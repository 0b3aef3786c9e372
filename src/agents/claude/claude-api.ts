import type { GatedApi } from '../../gate/api-gates.js';

/** Where Claude Code sends its model requests when nothing else is named. */
const ANTHROPIC_API = 'https://api.anthropic.com';

/** The variables that send Claude Code to a cloud's API instead of Anthropic's: a gate does not speak theirs. */
const CLOUDS = ['CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_VERTEX', 'CLAUDE_CODE_USE_FOUNDRY'];

/**
 * The Messages API Claude Code calls with `env`: `ANTHROPIC_BASE_URL`, else
 * Anthropic's own; none on Bedrock, Vertex or Foundry, whose requests
 * are signed for their own endpoints.
 */
export function claudeApi(env: Readonly<Record<string, string | undefined>>): GatedApi | undefined {
  if (CLOUDS.some((name) => /^(1|true|yes)$/i.test(env[name] ?? ''))) return undefined;
  const baseUrl = env.ANTHROPIC_BASE_URL || ANTHROPIC_API;
  // Claude Code turns MCP tool search off behind a base URL that is not Anthropic's: the gate passes
  // every block through, so a turn that would have called Anthropic keeps it (unless the user chose).
  const firstParty = URL.canParse(baseUrl) && new URL(baseUrl).hostname === 'api.anthropic.com';
  const keep = firstParty && env.ENABLE_TOOL_SEARCH === undefined;
  return {
    variable: 'ANTHROPIC_BASE_URL',
    baseUrl,
    ...(keep && { env: { ENABLE_TOOL_SEARCH: 'true' } }),
  };
}
