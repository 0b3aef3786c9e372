import { answerAsk, expireAsk } from './asks.js';
import { putAgent, type RunStore } from './run-store.js';
import type { StepFailure } from './step-failure.js';
import type { AgentRecord } from './types.js';

/** Applies an answer to the store; the agent's record after, or undefined for an ask no agent waits on (answered, timed out, unknown). */
export function answerInStore(
  store: RunStore,
  askId: string,
  text: string,
): AgentRecord | undefined {
  const record = [...store.agents.values()].find(
    (a) => a.status === 'active' && a.ask?.id === askId,
  );
  if (!record) return undefined;
  const answered = answerAsk(record, text);
  putAgent(store, answered);
  return answered;
}

/** What an ask's time running out did: the agent moved to `timeout_next`, or it has none and fails. */
export type Expiry =
  | { kind: 'moved'; record: AgentRecord; askId: string }
  | { kind: 'fails'; agentId: string; state: string; failure: StepFailure };

/** Settles an ask whose time ran out, if it is still the agent's pending one: moving it is applied to the store, failing is left to the caller. */
export function expireInStore(store: RunStore, agentId: string, askId: string): Expiry | undefined {
  const record = store.agents.get(agentId);
  if (!record || record.status !== 'active' || record.ask?.id !== askId) return undefined;
  const ask = record.ask;
  const late = expireAsk(record);
  if (late) {
    putAgent(store, late);
    return { kind: 'moved', record: late, askId };
  }
  const failure: StepFailure = {
    kind: 'step-failure',
    code: 'ERR_ASK_EXPIRED',
    message: `the ask ${ask.id} got no answer by ${ask.timeout_at} and has no timeout_next`,
    file: record.state,
    pauses: false,
    spentUsd: 0,
    sessionCosts: {},
  };
  return { kind: 'fails', agentId, state: record.state, failure };
}
