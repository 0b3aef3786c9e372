import type { StoredAgent, WorkflowState } from '../../machines/types.js';
import type { BackendSpec } from '../executors/executor.js';
import { openScope, resumeSpecifier, type Scope } from '../scope/scope.js';

/** The agent CLI each agent's workflow runs on, read from the workflows as they are now. */
export interface AgentBackends {
  /** The agent's backend; Claude Code when its workflow declares none or cannot be opened any more. */
  of(agent: StoredAgent): Promise<BackendSpec | undefined>;
  /** Removes what opening the workflows extracted (zips). */
  close(): Promise<void>;
}

/**
 * Opens each workflow a run's agents are in (the run's own, or another one's
 * by its scope key) at most once, when an agent of it first needs a
 * resolution turn.
 */
export function agentBackends(run: WorkflowState): AgentBackends {
  const opened = new Map<string, Promise<Scope | undefined>>();
  const open = (key: string | undefined) => {
    const k = key ?? '';
    let scope = opened.get(k);
    if (!scope) {
      const opening =
        key === undefined
          ? openScope(resumeSpecifier(run.scope))
          : openScope(key, { requireEntry: false });
      // A workflow gone since the run: its turns go to Claude Code, the default backend.
      scope = opening.catch(() => undefined);
      opened.set(k, scope);
    }
    return scope;
  };
  return {
    async of(agent) {
      return (await open(agent.scope))?.backend;
    },
    async close() {
      for (const scope of opened.values()) await (await scope)?.dispose();
    },
  };
}
