import type { StepInput, StepResult } from '../../machines/agent.machine.js';
import { RaymondError } from '../errors.js';
import { resolveDecision } from './resolve-decision.js';
import { freshSessions, stepDebug, type StepDependencies } from './step-context.js';

function tail(text: string, max = 300): string {
  const t = text.trim().replace(/\s+/g, ' ');
  return t.length > max ? `...${t.slice(-max)}` : t;
}

/** Runs a script state and reads its transition from what it printed. */
export async function runScriptStep(deps: StepDependencies, input: StepInput, where: string, signal: AbortSignal): Promise<StepResult> {
  const agent = input.record;
  const execution = await deps.script.execute({ workflowId: deps.workflowId, agent, file: agent.state, scope: deps.scope, signal, timeoutMs: deps.timeoutMs, debug: stepDebug(deps, agent) });
  let interpretation;
  try {
    interpretation = await deps.language.interpret({ output: execution.output, file: where }, signal);
  } catch (err) {
    if (err instanceof RaymondError && (err.code === 'ERR_TAG_MISSING' || err.code === 'ERR_TAG_MULTIPLE')) {
      const shown = execution.output.trim() ? `; its output ended with: ${tail(execution.output)}` : '; it printed nothing';
      throw new RaymondError(err.code, `${err.message}${shown}`, { file: where });
    }
    throw err;
  }
  for (const text of interpretation.prints) deps.emit({ type: 'print', agentId: agent.id, text });
  const decision = await resolveDecision(interpretation.decision, input, deps.scope, where, deps.workflowId);
  return { decision, session: null, costUsd: 0, freshSessions: freshSessions(decision) };
}
