import type { StoredAgent } from '../../machines/types.js';
import { RaymondError, formatError } from '../errors.js';
import type { ScopeSet } from '../scope/scope-set.js';

/**
 * Checks that every state a resumed run would run is a state of its
 * workflow: each live agent's current state, and the state each frame of its
 * stack returns to, resolved in the scope it belongs to exactly as a live
 * step resolves a tag's target. A state file is data on disk, which anyone
 * may edit; `../../elsewhere/evil.sh` must not run on `--resume`.
 */
export function checkStoredStates(
  agents: readonly StoredAgent[],
  scopes: ScopeSet,
  stateFile: string,
  runId: string,
): void {
  for (const agent of agents) {
    if (agent.status === 'terminated') continue;
    let key = agent.scope ?? null;
    check(agent.state, key, `agent ${agent.id}'s state`);
    // From the top of the stack down: a cross-workflow frame returns to its caller's scope, and the frames below it are in that scope too.
    for (let i = agent.stack.length - 1; i >= 0; i--) {
      const frame = agent.stack[i]!;
      if (frame.workflow) key = frame.workflow.scope;
      check(frame.state, key, `agent ${agent.id}'s stack frame ${i + 1}`);
    }
  }

  function check(state: string, key: string | null, what: string): void {
    let resolved: string;
    try {
      resolved = scopes.of(key).resolve(state, stateFile);
    } catch (err) {
      throw new RaymondError(
        'ERR_STATE_FILE',
        `${what} ${JSON.stringify(state).slice(0, 200)} is not a state of run ${runId}'s workflow (${err instanceof RaymondError ? err.message : formatError(err)}); the state file was edited or damaged`,
        { file: stateFile },
      );
    }
    if (resolved !== state) {
      throw new RaymondError(
        'ERR_STATE_FILE',
        `${what} ${JSON.stringify(state).slice(0, 200)} is not a state file name of run ${runId}'s workflow (it would be ${resolved}); the state file was edited or damaged`,
        { file: stateFile },
      );
    }
  }
}
