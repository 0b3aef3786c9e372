import type { AgentAsk, AgentFields, PendingAsk } from './types.js';

/**
 * What answering or timing out an ask does to its agent. Pure: used by the
 * supervisor during a run and by `--resume` before one, so an answer is
 * applied the same way whichever way it came.
 */

/** The agent after its ask got `text`: it goes on at the ask's `next` with the answer as `{{input}}` and `{{ask_id}}` bound. */
export function answerAsk<T extends AgentFields>(record: T, text: string): T {
  const { ask, ...rest } = record;
  if (!ask) throw new Error(`agent ${record.id} has no pending ask`);
  return { ...rest, state: ask.next, input: text, answered_ask: ask.id } as T;
}

/**
 * The agent after its ask's time ran out: on at `timeout_next` with no
 * input, or `undefined` when the ask has none (the agent fails).
 */
export function expireAsk<T extends AgentFields>(record: T): T | undefined {
  const { ask, ...rest } = record;
  if (!ask) throw new Error(`agent ${record.id} has no pending ask`);
  if (ask.timeout_next === undefined) return undefined;
  return { ...rest, state: ask.timeout_next, input: null, answered_ask: ask.id } as T;
}

/** Whether an ask's time has run out at `now` (epoch ms). */
export function askExpired(ask: PendingAsk, now: number): boolean {
  return ask.timeout_at !== undefined && Date.parse(ask.timeout_at) <= now;
}

/** The pending asks of some agents, oldest first (ties by agent id), each with its agent. */
export function pendingAsks(
  agents: Iterable<Pick<AgentFields, 'id' | 'status' | 'ask'>>,
): AgentAsk[] {
  const out: AgentAsk[] = [];
  for (const a of agents)
    if (a.ask && a.status === 'active') out.push({ ...a.ask, agent_id: a.id });
  return out.sort(
    (x, y) => x.created_at.localeCompare(y.created_at) || x.agent_id.localeCompare(y.agent_id),
  );
}
