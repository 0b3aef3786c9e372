import type { AgentBackend } from '../backend/agent-backend.js';
import type { BackendSpec } from '../executors/executor.js';
import { CLAUDE } from '../claude/claude-backend.js';
import { CODEX } from '../codex/codex-backend.js';
import { PI } from '../pi/pi-backend.js';

/** Every agent CLI Raymond drives, the default (Claude Code) first. A new backend is one line here. */
const BACKENDS: readonly AgentBackend[] = [CLAUDE, PI, CODEX];

/** Every backend name a manifest may give. */
export const BACKEND_NAMES: readonly string[] = BACKENDS.map((b) => b.name);

/** Every backend, the default first. */
export function allBackends(): readonly AgentBackend[] {
  return BACKENDS;
}

/** The backend of that name, if there is one. */
export function backendNamed(name: string): AgentBackend | undefined {
  return BACKENDS.find((b) => b.name === name);
}

/** The backend a workflow declares (Claude Code when it declares none). */
export function backendOf(spec: BackendSpec | undefined): AgentBackend {
  return (spec && backendNamed(spec.name)) ?? CLAUDE;
}
