import type { AgentBackend, BackendRuntime } from '../agent-backend.js';
import type { BackendSpec, ExecutionRequest, StateExecutor } from '../../executors/executor.js';
import { backendOf } from './registry.js';

/**
 * One executor for markdown states that hands each turn to its workflow's
 * backend; each backend's executor is made when a turn first needs it.
 * `backends` finds a request's backend (the registry's; tests give fakes).
 */
export function backendExecutor(
  runtime: BackendRuntime,
  backends: (spec: BackendSpec | undefined) => AgentBackend = backendOf,
): StateExecutor {
  const made = new Map<string, StateExecutor>();
  const of = (req: ExecutionRequest) => {
    const backend = backends(req.backend);
    let executor = made.get(backend.name);
    if (!executor) {
      executor = backend.executor(runtime);
      made.set(backend.name, executor);
    }
    return executor;
  };
  return {
    execute: (req) => of(req).execute(req),
    endSession(session) {
      for (const e of made.values()) e.endSession?.(session);
    },
    close() {
      for (const e of made.values()) e.close?.();
    },
  };
}
