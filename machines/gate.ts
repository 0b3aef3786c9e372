import { applyDecision, type SpawnRequest } from './apply-decision.js';
import { usd } from './money.js';
import type { RunStore } from './run-store.js';
import type { AgentRecord, GateAsk, PendingAsk, ResolvedDecision } from './types.js';

/*
 * The cost gate (`--confirm-over USD`): the question it asks, the answers
 * it takes and what they do. Pure: the forecasts come from the runtime
 * (src/runtime/cost-gate.ts), which builds the question; the supervisor
 * and `--resume` apply the answers here, the same way whichever way they came.
 */

/** Whether going on would take the run past the amount: spent plus the forecast's p90 over it. */
export function gateCrossed(spentUsd: number, forecastUsd: number, amountUsd: number): boolean {
  return forecastUsd > 0 && spentUsd + forecastUsd > amountUsd;
}

const CHOICES = 'yes (go on), stop, or a new amount such as 10 or $10';

/** The question the gate asks, in words: what passes the amount, and the answers it takes. */
export function gatePrompt(gate: GateAsk): string {
  const what =
    gate.kind === 'fork'
      ? `${gate.where} forks ${gate.workers} worker(s) forecast at ${usd(gate.forecast_usd)} together (p90)`
      : `${gate.where} is forecast at ${usd(gate.forecast_usd)} (p90)`;
  return `Cost gate: ${what}; with ${usd(gate.spent_usd)} spent, that passes --confirm-over ${usd(gate.amount_usd)}. Go on? Answer ${CHOICES}.`;
}

/** The pending ask of a gate: asked at `now` (epoch ms); the answer is applied by answerGate, never as `{{input}}`. */
export function gateAsk(agentId: string, state: string, gate: GateAsk, now: number): PendingAsk {
  return {
    id: `ask_${agentId}_${now}`,
    prompt: gatePrompt(gate),
    created_at: new Date(now).toISOString(),
    next: state,
    gate,
  };
}

/** An ask's cost gate for JSON (the asking report, the server's pending asks): what it stopped at and its figures, not the decision it keeps. */
export function gateJson(ask: PendingAsk): { gate?: Record<string, unknown> } {
  if (!ask.gate) return {};
  const { decision: _d, fresh: _f, where, ...figures } = ask.gate;
  return { gate: { state: where, ...figures } };
}

/** What an answer to the gate says: go on, stop, a new amount, or nothing it understands. */
export type GateAnswer =
  { kind: 'go' } | { kind: 'stop' } | { kind: 'amount'; usd: number } | { kind: 'unknown' };

const GO = new Set(['y', 'yes', 'go', 'go on', 'ok', 'continue']);
const STOP = new Set(['n', 'no', 'stop']);

/** Reads an answer: `yes`/`go on`, `stop`, or a number (`25`, `$25`, `25.5`) above 0. */
export function readGateAnswer(text: string): GateAnswer {
  const t = text.trim().toLowerCase().replace(/\s+/g, ' ');
  if (GO.has(t)) return { kind: 'go' };
  if (STOP.has(t)) return { kind: 'stop' };
  const amount = /^\$? ?(\d+(?:\.\d*)?|\.\d+)$/.exec(t);
  if (amount && Number(amount[1]) > 0) return { kind: 'amount', usd: Number(amount[1]) };
  return { kind: 'unknown' };
}

/** The one line a stopped gate leaves as the run's error: the state, the forecast and the amount. */
export function gateStopLine(gate: GateAsk, why: string): string {
  const what =
    gate.kind === 'fork'
      ? `${gate.workers} worker(s) forecast at ${usd(gate.forecast_usd)} (p90)`
      : `a step forecast at ${usd(gate.forecast_usd)} (p90)`;
  return `the cost gate stopped the run at ${gate.where}: ${what} with ${usd(gate.spent_usd)} spent would pass --confirm-over ${usd(gate.amount_usd)}; ${why}`;
}

/**
 * The agent asked the gate's question again, as a new ask: every front end
 * (the terminal, the page, `--on-ask=pause`'s JSON) shows it as a question
 * of its own, and an answer to the old one is refused as late.
 */
function askedAgain(record: AgentRecord, gate: GateAsk, prompt: string): AgentRecord {
  const old = record.ask!;
  const now = Math.max(Date.now(), Date.parse(old.created_at) + 1);
  return { ...record, ask: { ...gateAsk(record.id, old.next, gate, now), prompt } };
}

/** What an answer to a gate did to its agent. */
export type GateOutcome =
  /** The agent goes on: its ask is gone and, for a fork, the kept decision applied (`spawns` are its workers). */
  | { kind: 'go'; record: AgentRecord; spawns: SpawnRequest[] }
  /** Asked again: the answer was not understood, or a new amount is still passed. */
  | { kind: 'again'; record: AgentRecord }
  /** `stop`: the ask stays pending, the run stops paused (a resume asks again). */
  | { kind: 'stop'; line: string };

/**
 * Applies an answer to the gate `record` waits on. `yes` lifts the gate for
 * the rest of the run; a new amount becomes the run's (stored, so a resume
 * keeps it) and is checked at once against what the gate forecast. The
 * store's options are changed in place; the agent's record is returned, not put.
 */
export function answerGate(store: RunStore, record: AgentRecord, text: string): GateOutcome {
  const ask = record.ask!;
  const gate = ask.gate!;
  const answer = readGateAnswer(text);
  const options = store.meta.options;
  if (answer.kind === 'stop') return { kind: 'stop', line: gateStopLine(gate, 'answered "stop"') };
  if (answer.kind === 'unknown') {
    const hint = `"${text.trim()}" is not an answer here: say ${CHOICES}.`;
    return { kind: 'again', record: askedAgain(record, gate, `${hint}\n${gatePrompt(gate)}`) };
  }
  if (answer.kind === 'go') delete options.confirm_over_usd;
  else {
    options.confirm_over_usd = answer.usd;
    const spent = store.meta.total_cost_usd;
    if (gateCrossed(spent, gate.forecast_usd, answer.usd)) {
      const again: GateAsk = { ...gate, spent_usd: spent, amount_usd: answer.usd };
      return { kind: 'again', record: askedAgain(record, again, gatePrompt(again)) };
    }
  }
  const { ask: _ask, ...rest } = record;
  if (gate.kind === 'state' || !gate.decision) return { kind: 'go', record: rest, spawns: [] };
  // The decision was resolved by the step that made it, and kept as it was (only its type's mark is lost in the file).
  const applied = applyDecision(rest, gate.decision as ResolvedDecision, null, gate.fresh);
  return { kind: 'go', record: applied.record, spawns: applied.spawns };
}
