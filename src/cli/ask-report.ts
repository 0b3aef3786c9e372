import { gateJson } from '../../machines/gate.js';
import type { AgentAsk } from '../../machines/types.js';
import { commandName } from './program-name.js';

/** A value quoted for a POSIX shell, so a resume command can be pasted as it is printed. */
function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The command that answers the oldest pending ask of a run. */
export function resumeCommand(runId: string, stateDir?: string): string {
  return `${commandName()} --resume ${shellQuote(runId)}${stateDir ? ` --state-dir ${shellQuote(stateDir)}` : ''} --input "[your response]"`;
}

/** One pending ask as the `asks` array lists it. */
function askJson(a: AgentAsk) {
  return {
    ask_id: a.id,
    agent_id: a.agent_id,
    prompt: a.prompt,
    created_at: a.created_at,
    timeout_at: a.timeout_at ?? null,
    ...gateJson(a),
  };
}

/**
 * The object a run that stopped to ask prints on stdout (exit 2), as `ray`
 * does: `status`, `run_id`, `workflow`, `asking` (the oldest ask),
 * `pending_count` (the others) and `resume`. `extra` (Raymond's `--json`
 * summary) adds its fields and every pending ask.
 */
export function askingObject(
  run: { runId: string; workflow: string; asks: AgentAsk[]; resume: string },
  extra?: Record<string, unknown>,
): Record<string, unknown> {
  const [first, ...others] = run.asks;
  const out: Record<string, unknown> = {
    ...(extra ?? {}),
    status: 'asking',
    run_id: run.runId,
    workflow: run.workflow,
    asking: first
      ? { ask_id: first.id, agent_id: first.agent_id, prompt: first.prompt, ...gateJson(first) }
      : null,
    pending_count: others.length,
    resume: run.resume,
  };
  if (extra) out.asks = run.asks.map(askJson);
  return out;
}
