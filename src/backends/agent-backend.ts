import { EFFORTS, isModelName, MODEL_CHOICES } from '../claude/claude-argv.js';
import type { ExecutionRequest, StateExecutor } from '../executors/executor.js';
import { PI_THINKING } from '../pi/pi-argv.js';
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
}

const CLAUDE: AgentBackend = {
  name: 'claude',
  modelProblem: (m) => (isModelName(m) ? undefined : `model "${m}" is not ${MODEL_CHOICES}`),
  effortProblem: (e) => ((EFFORTS as readonly string[]).includes(e) ? undefined : `effort "${e}" is not one of ${EFFORTS.join(', ')}`),
};

const PI: AgentBackend = {
  name: 'pi',
  // pi takes a model verbatim (`provider/id` is clearest): only pi knows its providers' models.
  modelProblem: (m) => (m.trim() === '' || /\s/.test(m) ? `model "${m}" is not a pi model (provider/id)` : undefined),
  effortProblem: (e) => ((PI_THINKING as readonly string[]).includes(e) ? undefined : `effort "${e}" is not one of pi's thinking levels ${PI_THINKING.join(', ')}`),
};

/** The backend a workflow declares (Claude Code when it declares none). */
export function backendOf(spec: BackendSpec | undefined): AgentBackend {
  return spec?.name === 'pi' ? PI : CLAUDE;
}

/** One executor for markdown states that hands each turn to its workflow's backend. */
export function backendExecutor(executors: Record<BackendSpec['name'], StateExecutor>): StateExecutor {
  const of = (req: ExecutionRequest) => executors[req.backend?.name ?? 'claude'];
  return {
    execute: (req) => of(req).execute(req),
    endSession(session) {
      for (const e of Object.values(executors)) e.endSession?.(session);
    },
  };
}
