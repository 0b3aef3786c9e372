import { join } from 'node:path';
import type { AgentBackend } from '../agent-backend.js';
import { refusedGrantKey, type GrantRefusal } from '../grant-refusals.js';
import { PRICES_TAKEN, priceOf } from '../anthropic-prices.js';
import { preflightPi } from './find-pi.js';
import { PI_THINKING, piToolProblem } from './pi-argv.js';
import { createPiExecutor } from './pi-executor.js';
import { parsePiOptions } from './pi-options.js';
import { PI_SCRIPTED } from './pi-scripted.js';
import { findPiSession, piSessionFolder } from './pi-sessions.js';

/** What pi cannot do of a grant, by key: it has no MCP servers, no permission prompts and no extra directories. */
const PI_REFUSED: readonly GrantRefusal[] = [
  ['mcpServers', 'mcp_servers', 'pi has no MCP servers'],
  ['mcpInherit', 'mcp_inherit', 'pi has no MCP servers'],
  [
    'allowedTools',
    'allowed_tools',
    'pi asks no permission, so it has nothing to pre-approve and no patterns; list its tools in `tools`',
  ],
  [
    'disallowedTools',
    'disallowed_tools',
    'pi has no deny list or patterns; list the tools it may use in `tools`',
  ],
  ['addDirs', 'add_dirs', 'pi has no extra directories'],
  ['permissionMode', 'permission_mode', 'pi has no permission modes'],
];

/** Models offered for pi: `provider/id` of providers it reaches. */
const PI_MODELS: readonly string[] = [
  'anthropic/claude-sonnet-5-5',
  'anthropic/claude-opus-5-5',
  'anthropic/claude-haiku-5-5',
  'openai/gpt-6.2-sol',
  'openai/gpt-5.5',
];

/** pi (`backend: pi`): any provider's model, by `provider/id`; sessions are files found by id. */
export const PI: AgentBackend = {
  name: 'pi',
  title: 'pi',
  parseOptions: (options, bad) => parsePiOptions(options ?? {}, bad),
  // pi takes a model verbatim (`provider/id` is clearest): only pi knows its providers' models.
  modelProblem: (m) =>
    m.trim() === '' || /\s/.test(m) ? `model "${m}" is not a pi model (provider/id)` : undefined,
  modelHint: 'provider/id (anthropic/claude-sonnet-4-5)',
  efforts: PI_THINKING,
  effortProblem: (e) =>
    (PI_THINKING as readonly string[]).includes(e)
      ? undefined
      : `effort "${e}" is not one of pi's thinking levels ${PI_THINKING.join(', ')}`,
  grantProblem(grant) {
    const refused = refusedGrantKey(grant, PI_REFUSED, 'pi');
    if (refused !== undefined) return refused;
    const tools = grant.tools === undefined ? undefined : piToolProblem(grant.tools);
    return tools === undefined ? undefined : `tools: the pi backend cannot honour it (${tools})`;
  },
  preflight: async (env) => void (await preflightPi(env)),
  executor: createPiExecutor,
  sessions: {
    find: (id, _cwd, options, env) => findPiSession(id, options, env),
    // pi names its files <time>_<id>.jsonl, and finds them by that name in any folder of its own.
    placeFor: (id, name, cwd, options, env) =>
      findPiSession(id, options, env) ?? join(piSessionFolder(cwd, options, env), name),
  },
  // pi reports each turn's cost itself: the table prices forecasts only (a Claude model's id, else the default).
  scripted: PI_SCRIPTED,
  priceTable: { name: 'Claude', taken: PRICES_TAKEN },
  priceOf: (model) => priceOf(model),
  models: PI_MODELS,
  // No toolProblem: grantProblem already refuses a tool pi does not have.
};
