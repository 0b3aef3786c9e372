import { addWorkers } from './forked-workers.js';
import { frameFor } from './frame-waiters.js';
import { answerGate, gateCrossed, gateStopLine } from './gate.js';
import { putAgent, setRunStatus, type RunStore } from './run-store.js';
import type { StepFailure } from './step-failure.js';
import type { Enqueue } from './run-work.js';
import type { RunWork } from './supervisor-types.js';
import type { AgentRecord } from './types.js';

/*
 * What the supervisor does for the cost gate and `--max-agents`: applies an
 * answer to a gate (forking the workers a gate kept), stops the run at a
 * gate, and refuses a fork past the most live agents. Pure, as the
 * supervisor's other work (machines/run-work.ts).
 */

/**
 * Applies an answer to the gate an agent waits on. Going on hands the
 * agent's frame its record (`frames`: false before the run's actors exist,
 * at a resume); a "yes" lifts the gate, so every other agent waiting at it
 * goes on too. Returns the line to stop the run with, for `stop`.
 */
export function settleGate(
  work: RunWork,
  record: AgentRecord,
  text: string,
  enqueue: Enqueue,
  frames = true,
): string | undefined {
  const { store } = work;
  const askId = record.ask!.id;
  const outcome = answerGate(store, record, text);
  if (outcome.kind === 'stop') {
    setRunStatus(store, 'paused', outcome.line);
    return outcome.line;
  }
  putAgent(store, outcome.record);
  const again = outcome.kind === 'again';
  const workers = again ? 0 : outcome.spawns.length;
  const gate = { again, workers, joining: outcome.record.joining === true };
  enqueue.emit({ type: 'ask.answered', agentId: record.id, askId, expired: false, text, gate });
  if (outcome.kind === 'again') {
    enqueue.emit({ type: 'ask.created', ask: { ...outcome.record.ask!, agent_id: record.id } });
    return undefined;
  }
  addWorkers(store, work.toSpawn, record.id, outcome.spawns, enqueue.emit);
  if (frames) {
    const ref = frameFor(work.asks, outcome.record);
    if (ref) enqueue.sendTo(ref, { type: 'ask.resolved', record: outcome.record });
  } else {
    const i = work.toSpawn.findIndex((r) => r.id === record.id);
    if (i >= 0) work.toSpawn[i] = outcome.record;
  }
  if (store.meta.options.confirm_over_usd === undefined)
    for (const other of [...store.agents.values()])
      if (other.status === 'active' && other.ask?.gate)
        settleGate(work, other, 'yes', enqueue, frames);
  return undefined;
}

/**
 * Looks again at a gate an agent came to (or was waiting at when the run
 * started): the amount may have been lifted or raised since its step got
 * its slot (or by `--confirm-over` given to a resume), and it then goes on.
 * Else, where nobody can answer (`gateStops`: `--on-ask=reject`, the
 * default without a terminal), the run stops, paused, with one line;
 * returns true then.
 */
export function reviewGate(
  work: RunWork,
  record: AgentRecord,
  gateStops: boolean,
  enqueue: Enqueue,
  frames: boolean,
): boolean {
  const { store } = work;
  const ask = record.ask!;
  const gate = ask.gate!;
  const amount = store.meta.options.confirm_over_usd;
  if (amount === undefined || !gateCrossed(store.meta.total_cost_usd, gate.forecast_usd, amount)) {
    settleGate(work, record, amount === undefined ? 'yes' : String(amount), enqueue, frames);
    return false;
  }
  if (!gateStops) return false;
  const why = `nobody is here to answer (no terminal, --on-ask=reject); answer with --resume ${store.meta.workflow_id} --answer ${ask.id}=yes (or stop, or a new amount)`;
  setRunStatus(store, 'paused', gateStopLine(gate, why));
  return true;
}

/**
 * Why a step's fork goes past `--max-agents`, or undefined when it does
 * not: the workers it starts now, or those of the fork a gate kept.
 */
export function tooManyAgents(
  store: RunStore,
  record: AgentRecord,
  spawns: number,
  from: string,
): StepFailure | undefined {
  const max = store.meta.options.max_agents;
  const workers = spawns + (record.ask?.gate?.workers ?? 0);
  if (max === undefined || workers === 0 || store.live + workers <= max) return undefined;
  return {
    kind: 'step-failure',
    code: 'ERR_MAX_AGENTS',
    message: `<fork> of ${workers} worker(s) would make ${store.live + workers} live agents (${store.live} now), past --max-agents ${max}; no worker was started`,
    file: from,
    pauses: false,
    halts: true,
    spentUsd: 0,
    sessionCosts: {},
  };
}
