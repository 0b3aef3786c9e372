import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentFields } from '../../machines/types.js';
import type { ExecutionRequest } from './executor.js';

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

/** This process's folder of step-key files, made when first needed and removed when the process ends. */
let keyFolder: string | undefined;

function keyFolderPath(): string {
  if (!keyFolder) {
    keyFolder = mkdtempSync(join(tmpdir(), 'raymond-step-keys-'));
    const made = keyFolder;
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
  }
  return keyFolder;
}

/**
 * What an agent CLI's turn tells its tools of the step (`RAYMOND_WORKFLOW_ID`,
 * `RAYMOND_AGENT_ID`, `RAYMOND_STEP_KEY_FILE`): the same for every turn of
 * the agent, so a live Claude Code process that keeps the environment it
 * started with serves its later steps too. The key itself changes from
 * step to step, so it is in a file, written here before each turn; a
 * variable would be the first step's for the process's whole life
 * (Claude Code reads even `CLAUDE_ENV_FILE` only once).
 */
export function turnEnvironment(
  req: Pick<ExecutionRequest, 'workflowId' | 'agent'>,
): Record<string, string> {
  // A name of the run and agent that any run id makes a file name of.
  const name = createHash('sha256').update(`${req.workflowId}\0${req.agent.id}`).digest('hex');
  const file = join(keyFolderPath(), name.slice(0, 24));
  writeFileSync(file, `${stepKey(req.workflowId, req.agent)}\n`);
  return {
    RAYMOND_WORKFLOW_ID: req.workflowId,
    RAYMOND_AGENT_ID: req.agent.id,
    RAYMOND_STEP_KEY_FILE: file,
  };
}
