import type { AgentBackend } from '../agent-backend.js';
import { refusedGrantKey, type GrantRefusal } from '../grant-refusals.js';
import { CODEX_EFFORTS } from './codex-argv.js';
import { createCodexExecutor } from './codex-executor.js';
import { codexMcpProblem } from './codex-mcp.js';
import { parseCodexOptions } from './codex-options.js';
import { CODEX_PRICES_TAKEN, codexPriceOf } from './codex-prices.js';
import { CODEX_SCRIPTED } from './codex-scripted.js';
import { CODEX_SESSIONS } from './codex-sessions.js';
import { preflightCodex } from './find-codex.js';

/** What Codex cannot do of a grant, by key: it has no tool list to narrow or pre-approve. */
const CODEX_REFUSED: readonly GrantRefusal[] = [
  [
    'tools',
    'tools',
    'codex has no list of tools; limit what it may do with permission_mode (plan: read-only) and add_dirs',
  ],
  [
    'allowedTools',
    'allowed_tools',
    'codex asks no permission in a run, so it has nothing to pre-approve; limit it with permission_mode and add_dirs',
  ],
  [
    'disallowedTools',
    'disallowed_tools',
    'codex has no deny list of tools; limit it with permission_mode (plan: read-only) and add_dirs',
  ],
];

/** Models offered for Codex: its default first, then OpenAI's others of the price table. */
const CODEX_MODELS: readonly string[] = [
  'gpt-6.2-sol',
  'gpt-6.2-astra',
  'gpt-6.1-terra',
  'gpt-6-luna',
  'gpt-5.5',
  'gpt-5.3-codex',
];

/**
 * OpenAI's Codex CLI (`@openai/codex`): `codex exec --json` per turn, its
 * threads continued and forked by id, its sandbox from the state's
 * permission mode, its cost from its tokens and the price table.
 */
export const CODEX: AgentBackend = {
  name: 'codex',
  title: 'Codex',
  parseOptions: (options, bad) => parseCodexOptions(options ?? {}, bad),
  // codex takes a model verbatim (`-m`): only its provider knows its models.
  modelProblem: (m) =>
    m.trim() === '' || /\s/.test(m) ? `model "${m}" is not a codex model name` : undefined,
  modelHint: "its provider's model names (gpt-5-codex)",
  efforts: CODEX_EFFORTS,
  effortProblem: (e) =>
    (CODEX_EFFORTS as readonly string[]).includes(e)
      ? undefined
      : `effort "${e}" is not one of codex's reasoning levels ${CODEX_EFFORTS.join(', ')}`,
  grantProblem(grant) {
    const refused = refusedGrantKey(grant, CODEX_REFUSED, 'codex');
    if (refused !== undefined) return refused;
    const servers = grant.mcpServers;
    if (servers !== undefined) {
      // A file's servers are read when the state runs, and checked there.
      const map = typeof servers === 'string' ? '{}' : JSON.stringify({ mcpServers: servers });
      const problem = codexMcpProblem(map, grant.mcpInherit === true);
      if (problem) return problem;
    }
    return undefined;
  },
  preflight: async (env) => {
    await preflightCodex(env);
  },
  executor: createCodexExecutor,
  sessions: CODEX_SESSIONS,
  scripted: CODEX_SCRIPTED,
  priceTable: { name: 'OpenAI', taken: CODEX_PRICES_TAKEN },
  priceOf: codexPriceOf,
  models: CODEX_MODELS,
  // No toolProblem: grantProblem refuses every tool list (codex has none).
};
