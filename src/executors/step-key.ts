import { createHash } from 'node:crypto';
import type { AgentFields } from '../../machines/types.js';

/**
 * The key of the step an agent runs next (`RAYMOND_STEP_KEY`): a hash of
 * the run, the agent and how many of its steps have ended. A step run
 * again (after a crash, a pause, or on another queue worker) has the same
 * key; the agent's next step, even of the same state, has another. Made
 * to be sent as an `Idempotency-Key`, or to name what a step did once.
 */
export function stepKey(workflowId: string, agent: Pick<AgentFields, 'id' | 'steps'>): string {
  return createHash('sha256')
    .update(`${workflowId}\0${agent.id}\0${agent.steps ?? 0}`)
    .digest('hex')
    .slice(0, 32);
}
