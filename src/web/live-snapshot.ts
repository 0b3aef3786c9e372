import type { RunEvent } from '../../machines/run-events.js';
import type { AgentAsk, RunStatus } from '../../machines/types.js';

/** What the live page shows of an agent's machine: its top frame, or what it waits for. */
export type LiveMachineState = 'idle' | 'invoking' | 'awaiting-child' | 'terminated' | 'asking' | 'paused';

/** One agent as the live page lists it. */
export interface LiveAgent {
  id: string;
  machine: LiveMachineState;
  /** The state file its top frame is at (for a terminated agent: the last one it ran). */
  state: string;
  /** The workflow the state is in, when it is not the run's own (a cross-workflow callee). */
  scope?: string | undefined;
  /** Return frames on its stack: callers awaiting it. */
  depth: number;
  /** What its steps cost, as far as this view saw them. */
  costUsd: number;
  /** Ended with a failure rather than a result. */
  failed?: boolean | undefined;
}

/**
 * The input of the live page besides the event stream: the run as it
 * stands after the event numbered `seq`. `recent` holds the last events
 * the log shows, so a page opened late still has some history.
 */
export interface LiveSnapshot {
  seq: number;
  run: {
    id: string | null;
    name?: string | undefined;
    /** `stopped`: the run ended while agents were still running (interrupted or cancelled; it can be resumed); `cancelled`: a server's run cancelled over HTTP. */
    status: RunStatus | 'starting' | 'stopped' | 'cancelled';
    costUsd: number;
    /** 0: unlimited. */
    budgetUsd: number;
    /** Epoch ms; null before the run started. */
    startedAt: number | null;
    /** Set once the run finished (milliseconds it took). */
    elapsedMs?: number | undefined;
    steps: number;
    /** Tool calls the states' permissions refused since the run (re)started. */
    denials: number;
    error?: string | undefined;
    /** The main agent's result, once it gave one. */
    result?: string | undefined;
  };
  agents: LiveAgent[];
  asks: AgentAsk[];
  recent: Array<{ seq: number; event: RunEvent }>;
}

/** How many log-worthy events a snapshot keeps. */
export const RECENT_EVENTS = 200;
/** The events the page's log shows (the others only move agents). */
export const LOGGED_EVENTS: ReadonlySet<RunEvent['type']> = new Set<RunEvent['type']>(['run.started', 'step.done', 'agent.paused', 'agent.failed', 'agent.joined', 'permission.denied', 'ask.created', 'ask.pending', 'ask.answered', 'print', 'warning', 'run.finished']);

/** Folds a run's events into what the live page needs; O(1) per event. */
export interface LiveTracker {
  event(seq: number, e: RunEvent): void;
  snapshot(): LiveSnapshot;
  /** Whether an ask is waiting for its answer. */
  pending(askId: string): boolean;
}

/** A tracker of one run, fed every RunEvent in order. */
export function createLiveTracker(): LiveTracker {
  const agents = new Map<string, LiveAgent>();
  const asks = new Map<string, AgentAsk>();
  const recent: Array<{ seq: number; event: RunEvent }> = [];
  const run: LiveSnapshot['run'] = { id: null, status: 'starting', costUsd: 0, budgetUsd: 0, startedAt: null, steps: 0, denials: 0 };
  let last = 0;

  const agent = (id: string, state: string): LiveAgent => {
    let a = agents.get(id);
    if (!a) agents.set(id, (a = { id, machine: 'idle', state, depth: 0, costUsd: 0 }));
    return a;
  };

  const fold = (e: RunEvent) => {
    switch (e.type) {
      case 'run.started':
        Object.assign(run, { id: e.workflowId, name: e.name, status: 'running', costUsd: e.totalCostUsd, budgetUsd: e.budgetUsd, startedAt: e.at, steps: 0, denials: 0 });
        break;
      case 'permission.denied':
        run.denials++;
        break;
      case 'agent.forked':
        agent(e.id, e.state);
        break;
      case 'step.started': {
        const a = agent(e.agentId, e.state);
        Object.assign(a, { machine: 'invoking', state: e.state, scope: e.scope });
        break;
      }
      case 'step.done': {
        const a = agent(e.agentId, e.from);
        a.costUsd += e.costUsd;
        a.depth = e.depth;
        if (e.to === null) a.machine = 'terminated';
        else Object.assign(a, { machine: e.decision.kind === 'ask' ? 'asking' : e.decision.kind === 'fork' && e.decision.join ? 'awaiting-child' : 'idle', state: e.to });
        if (e.to === null && e.decision.kind === 'result' && e.agentId === 'main') run.result = e.decision.payload;
        run.costUsd = e.totalCostUsd;
        run.steps++;
        break;
      }
      case 'agent.paused':
        Object.assign(agent(e.agentId, e.state), { machine: 'paused' });
        run.costUsd = e.totalCostUsd;
        break;
      case 'agent.joined':
        Object.assign(agent(e.agentId, e.state), { machine: 'idle', state: e.state });
        break;
      case 'agent.failed':
        Object.assign(agent(e.agentId, e.state), { machine: 'terminated', failed: true });
        run.costUsd = e.totalCostUsd;
        break;
      case 'ask.created':
      case 'ask.pending':
        asks.set(e.ask.id, e.ask);
        agent(e.ask.agent_id, e.ask.next).machine = 'asking';
        break;
      case 'ask.answered':
        asks.delete(e.askId);
        if (agents.get(e.agentId)?.machine === 'asking') agents.get(e.agentId)!.machine = 'idle';
        break;
      case 'run.finished':
        Object.assign(run, { status: e.status === 'running' ? 'stopped' : e.status, costUsd: e.totalCostUsd, elapsedMs: e.elapsedMs, error: e.error });
        break;
      default:
        break;
    }
  };

  return {
    event(seq, e) {
      last = seq;
      fold(e);
      if (!LOGGED_EVENTS.has(e.type)) return;
      recent.push({ seq, event: e });
      if (recent.length > RECENT_EVENTS) recent.shift();
    },
    snapshot: () => ({ seq: last, run: { ...run }, agents: [...agents.values()].map((a) => ({ ...a })), asks: [...asks.values()], recent: [...recent] }),
    pending: (askId) => asks.has(askId),
  };
}
