import { EFFORTS, isModelName, MODEL_CHOICES } from '../claude/claude-argv.js';
import type { ExecutionRequest, StateExecutor } from '../executors/executor.js';
import type { Grant } from '../language/grant.js';
import { PI_THINKING, piToolProblem } from '../pi/pi-argv.js';
import type { BackendSpec } from '../scope/backend-spec.js';

/**
 * What the rest of Raymond knows of an agent CLI: which models and efforts
 * it takes (checked before a turn, and by lint), and the executor that runs
 * its turns (argv, stream, sessions, cost and failure classes live there).
 * Claude Code and pi are the two; a third (Codex CLI, Gemini CLI) would be
 * one more entry here and one more executor.
 */
export interface AgentBackend {
  readonly name: BackendSpec['name'];
  /** Why a state's `model:` is not this backend's, if it is not. */
  modelProblem(model: string): string | undefined;
  /** Why a state's `effort:` is not this backend's, if it is not. */
  effortProblem(effort: string): string | undefined;
  /** Why a state's grant asks what this backend cannot do (`key: ...`, naming the backend), if it does. */
  grantProblem(grant: Grant): string | undefined;
}

const CLAUDE: AgentBackend = {
  name: 'claude',
  modelProblem: (m) => (isModelName(m) ? undefined : `model "${m}" is not ${MODEL_CHOICES}`),
  effortProblem: (e) =>
    (EFFORTS as readonly string[]).includes(e)
      ? undefined
      : `effort "${e}" is not one of ${EFFORTS.join(', ')}`,
  grantProblem: () => undefined,
};

/** What pi cannot do of a grant, by key: it has no MCP servers, no permission prompts and no extra directories. */
const PI_REFUSED: Array<[keyof Grant, string, string]> = [
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

const PI: AgentBackend = {
  name: 'pi',
  // pi takes a model verbatim (`provider/id` is clearest): only pi knows its providers' models.
  modelProblem: (m) =>
    m.trim() === '' || /\s/.test(m) ? `model "${m}" is not a pi model (provider/id)` : undefined,
  effortProblem: (e) =>
    (PI_THINKING as readonly string[]).includes(e)
      ? undefined
      : `effort "${e}" is not one of pi's thinking levels ${PI_THINKING.join(', ')}`,
  grantProblem(grant) {
    for (const [field, key, why] of PI_REFUSED)
      if (grant[field] !== undefined) return `${key}: the pi backend cannot honour it (${why})`;
    const tools = grant.tools === undefined ? undefined : piToolProblem(grant.tools);
    return tools === undefined ? undefined : `tools: the pi backend cannot honour it (${tools})`;
  },
};

/** The backend a workflow declares (Claude Code when it declares none). */
export function backendOf(spec: BackendSpec | undefined): AgentBackend {
  return spec?.name === 'pi' ? PI : CLAUDE;
}

/** One executor for markdown states that hands each turn to its workflow's backend. */
export function backendExecutor(
  executors: Record<BackendSpec['name'], StateExecutor>,
): StateExecutor {
  const of = (req: ExecutionRequest) => executors[req.backend?.name ?? 'claude'];
  return {
    execute: (req) => of(req).execute(req),
    endSession(session) {
      for (const e of Object.values(executors)) e.endSession?.(session);
    },
  };
}
