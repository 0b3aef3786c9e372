import type { AgentBackend } from '../agent-backend.js';
import type { AnySetting } from '../../setting.js';
import type { BackendSpec } from '../../executors/executor.js';
import * as listed from './backend-list.js';

/** The backend of a workflow that names none. */
const DEFAULT_BACKEND = 'claude';

/**
 * Every agent CLI Raymond drives (a new backend is one line in
 * backend-list.ts), the default first, then by name: a namespace's keys
 * come sorted, whatever the list's order.
 */
const BACKENDS: readonly AgentBackend[] = Object.values(listed).sort(
  (a, b) => Number(b.name === DEFAULT_BACKEND) - Number(a.name === DEFAULT_BACKEND),
);
const DEFAULT = BACKENDS[0]!;

/** The backend of a workflow that names none (Claude Code). */
export function defaultBackend(): AgentBackend {
  return DEFAULT;
}

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
  return (spec && backendNamed(spec.name)) ?? DEFAULT;
}

/**
 * Why a run-wide `--model` (the config's `model`, a launch's) is no
 * backend's: undefined when some backend takes it. Which backend a state
 * runs on is known when it runs, and its own check is made there.
 */
export function runModelProblem(model: string): string | undefined {
  if (BACKENDS.some((b) => b.modelProblem(model) === undefined)) return undefined;
  return BACKENDS.map((b) => `${b.title}: ${b.modelProblem(model)!}`).join('; ');
}

/** Every effort some backend takes: a run-wide `--effort` must be one of them. */
export const RUN_EFFORTS: readonly string[] = [...new Set(BACKENDS.flatMap((b) => b.efforts))];

/**
 * What each backend takes for a run-wide setting, for its help and the
 * reference: `Claude Code: opus, sonnet, ...; pi: provider/id; ...`.
 */
export function backendChoices(what: 'model' | 'effort'): string {
  return BACKENDS.map(
    (b) => `${b.title}: ${what === 'model' ? b.modelHint : b.efforts.join(', ')}`,
  ).join('; ');
}

/** Every backend's own run settings (AgentBackend.settings), each with its config key. */
export function backendSettings(): ReadonlyArray<[string, AnySetting]> {
  return BACKENDS.flatMap((b) => Object.entries(b.settings ?? {}));
}
