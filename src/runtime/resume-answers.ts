import { answerAsk, askExpired, pendingAsks } from '../../machines/asks.js';
import type { StoredAgent } from '../../machines/types.js';
import { RaymondError } from '../errors.js';

/** Answers given with `--resume`: `--input TEXT` (the oldest pending ask) and `--answer ASK_ID=TEXT`. */
export interface ResumeAnswers {
  /** `--input`: answers the oldest pending ask that has not run out of time. */
  input?: string;
  /** `--answer ASK_ID=TEXT`, in the order given. */
  byId?: ReadonlyArray<{ askId: string; text: string }>;
}

/** What applying answers did: the agents after, and notes for the user (asks whose time ran out before the answer came). */
export interface AppliedAnswers {
  agents: StoredAgent[];
  notes: string[];
  /** The asks answered, with their answers. */
  answered: Array<{ agentId: string; askId: string; text: string }>;
  /** Answers to cost gates: applied by the run as it starts (machines/gate-work.ts), as an answer during the run is. */
  gates: Array<{ askId: string; text: string }>;
}

/**
 * Applies the answers of a `--resume` to a run's agents before it goes on.
 * An ask whose time ran out is not answered: its agent takes `timeout_next`
 * when the run starts, and a note says so. The agents' records are written
 * with the answer at the run's first write, before the answered state runs,
 * so an answer is applied once even if the process is killed after.
 * @throws RaymondError ERR_ASK_ANSWER naming `file` (the state file) for an answer to no pending ask.
 */
export function applyResumeAnswers(
  agents: StoredAgent[],
  answers: ResumeAnswers,
  runId: string,
  file: string,
  now = Date.now(),
): AppliedAnswers {
  const pending = pendingAsks(agents);
  const notes: string[] = [];
  const answered: AppliedAnswers['answered'] = [];
  const texts = new Map<string, string>();
  const list = () =>
    pending.length === 0
      ? 'it has none'
      : `pending: ${pending.map((a) => `${a.id} (${a.agent_id})`).join(', ')}`;
  for (const { askId, text } of answers.byId ?? []) {
    const ask = pending.find((a) => a.id === askId);
    if (!ask)
      throw new RaymondError(
        'ERR_ASK_ANSWER',
        `--answer ${askId}=...: run ${runId} has no pending ask ${askId} (${list()})`,
        { file },
      );
    if (texts.has(askId))
      throw new RaymondError('ERR_ASK_ANSWER', `--answer ${askId}=... is given twice`, { file });
    texts.set(askId, text);
  }
  if (answers.input !== undefined) {
    const open = pending.filter((a) => !texts.has(a.id));
    if (open.length === 0)
      throw new RaymondError(
        'ERR_ASK_ANSWER',
        `--input answers a pending ask, and run ${runId} has no ${pending.length > 0 ? 'other ' : ''}pending ask (${list()})`,
        { file },
      );
    const oldest = open.find((a) => !askExpired(a, now)) ?? open[0]!;
    texts.set(oldest.id, answers.input);
  }
  const gates: AppliedAnswers['gates'] = [];
  const out = agents.map((agent) => {
    const text = agent.ask ? texts.get(agent.ask.id) : undefined;
    if (text === undefined || !agent.ask) return agent;
    if (agent.ask.gate) {
      gates.push({ askId: agent.ask.id, text });
      return agent;
    }
    if (askExpired(agent.ask, now)) {
      notes.push(
        `the ask ${agent.ask.id} of ${agent.id} ran out of time at ${agent.ask.timeout_at}; the answer is not used, and the agent goes ${agent.ask.timeout_next ? `to ${agent.ask.timeout_next}` : 'nowhere: it fails'}`,
      );
      return agent;
    }
    answered.push({ agentId: agent.id, askId: agent.ask.id, text });
    return answerAsk(agent, text);
  });
  return { agents: out, notes, answered, gates };
}
