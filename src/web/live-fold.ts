import type { RunEvent } from '../../machines/run-events.js';
import { runBudgets, type RunBudgets } from '../../machines/budget-figures.js';
import type { AgentAsk, BranchBudget, RunStatus } from '../../machines/types.js';
import { CostTable, stateKeyOf } from '../../machines/cost-table.js';
import { widthText } from '../../machines/width-text.js';

// Shared by the server (live-snapshot.ts) and the live page in the browser
// (client/live-page.ts, bundled by esbuild): no node:* module here, so the
// snapshot a page loads and the events it folds on top agree by construction.

/** What the live page shows of an agent's machine: its top frame, or what it waits for. */
type LiveMachineState = 'idle' | 'invoking' | 'awaiting-child' | 'terminated' | 'asking' | 'paused';

/** One agent as the live page lists it. */
export interface LiveAgent {
  id: string;
  machine: LiveMachineState;
  /** The state file its top frame is at (for a terminated agent: the last one it ran). */
  state: string;
  /** The workflow the state is in, when it is not the run's own (a cross-workflow callee). */
  scope?: string;
  /** Return frames on its stack: callers awaiting it. */
  depth: number;
  /** What its steps cost, as far as this view saw them. */
  costUsd: number;
  /** Ended with a failure rather than a result. */
  failed?: boolean;
  /** What its running step reserved of the budgets (0 between steps). */
  reservedUsd?: number;
  /** The branch budgets it spends against (`<fork budget>`). */
  budgets?: BranchBudget[];
}

/** The run as the live page heads it. */
export interface LiveRun {
  id: string | null;
  name?: string;
  /** `stopped`: the run ended while agents were still running (interrupted or cancelled; it can be resumed); `cancelled`: a server's run cancelled over HTTP. */
  status: RunStatus | 'starting' | 'stopped' | 'cancelled';
  costUsd: number;
  /** 0: unlimited. */
  budgetUsd: number;
  /** Epoch ms; null before the run started. */
  startedAt: number | null;
  /** Set once the run finished (milliseconds it took). */
  elapsedMs?: number;
  steps: number;
  /** Tool calls the states' permissions refused since the run (re)started. */
  denials: number;
  /** How many turns start at once against each backend's account, and why, once its width changed. */
  widths?: Record<string, string>;
  error?: string;
  /** The main agent's result, once it gave one. */
  result?: string;
}

/** What the events fold into: the run, its agents (in the order they appeared) and its pending asks. */
export interface LiveModel {
  run: LiveRun;
  agents: Map<string, LiveAgent>;
  /** Agent ids in the order they appeared (the page's table indexes it). */
  order: string[];
  asks: Map<string, AgentAsk>;
  /** The run's cost by state (steps, turns, cost, wall time), from its `step.measured` events. */
  byState: CostTable;
}

/** The run's budgets as the events tell them: spent, reserved by the steps running, and left. */
export function liveBudgets(model: LiveModel): RunBudgets {
  const agents = [...model.agents.values()].map((a) => ({
    spentUsd: a.costUsd,
    reservedUsd: a.reservedUsd ?? 0,
    ...(a.budgets ? { budgets: a.budgets } : {}),
  }));
  return runBudgets(model.run.budgetUsd, model.run.costUsd, agents);
}

/** The model of a run no event has reached yet. */
export function emptyLiveModel(): LiveModel {
  const run: LiveRun = {
    id: null,
    status: 'starting',
    costUsd: 0,
    budgetUsd: 0,
    startedAt: null,
    steps: 0,
    denials: 0,
  };
  return { run, agents: new Map(), order: [], asks: new Map(), byState: new CostTable() };
}

function agentOf(model: LiveModel, id: string, state: string): LiveAgent {
  let a = model.agents.get(id);
  if (!a) {
    model.agents.set(id, (a = { id, machine: 'idle', state, depth: 0, costUsd: 0 }));
    model.order.push(id);
  }
  return a;
}

/** Folds one RunEvent into the model, in place; O(1) per event. Events that move nothing are ignored. */
export function foldLiveEvent(model: LiveModel, e: RunEvent): void {
  const run = model.run;
  switch (e.type) {
    case 'run.started':
      Object.assign(run, {
        id: e.workflowId,
        name: e.name,
        status: 'running',
        costUsd: e.totalCostUsd,
        budgetUsd: e.budgetUsd,
        startedAt: e.at,
        steps: 0,
        denials: 0,
      });
      break;
    case 'permission.denied':
      run.denials++;
      break;
    case 'width.changed':
      run.widths = { ...run.widths, [e.backend]: widthText(e) };
      break;
    case 'step.measured':
      model.byState.add(stateKeyOf(e), e);
      break;
    case 'agent.forked': {
      const a = agentOf(model, e.id, e.state);
      if (e.budgets) a.budgets = e.budgets;
      break;
    }
    case 'step.started': {
      const a = agentOf(model, e.agentId, e.state);
      Object.assign(a, { machine: 'invoking', state: e.state, scope: e.scope });
      if (e.reservedUsd) a.reservedUsd = e.reservedUsd;
      break;
    }
    case 'step.done': {
      const a = agentOf(model, e.agentId, e.from);
      a.costUsd += e.costUsd;
      delete a.reservedUsd;
      a.depth = e.depth;
      if (e.to === null) a.machine = 'terminated';
      else
        Object.assign(a, {
          machine:
            e.decision.kind === 'ask'
              ? 'asking'
              : e.decision.kind === 'fork' && e.decision.join
                ? 'awaiting-child'
                : 'idle',
          state: e.to,
        });
      if (e.to === null && e.decision.kind === 'result' && e.agentId === 'main')
        run.result = e.decision.payload;
      run.costUsd = e.totalCostUsd;
      run.steps++;
      break;
    }
    case 'agent.paused': {
      const a = agentOf(model, e.agentId, e.state);
      a.machine = 'paused';
      delete a.reservedUsd;
      run.costUsd = e.totalCostUsd;
      break;
    }
    case 'agent.joined':
      Object.assign(agentOf(model, e.agentId, e.state), { machine: 'idle', state: e.state });
      break;
    case 'agent.failed': {
      const a = agentOf(model, e.agentId, e.state);
      Object.assign(a, { machine: 'terminated', failed: true });
      delete a.reservedUsd;
      run.costUsd = e.totalCostUsd;
      break;
    }
    case 'ask.created':
    case 'ask.pending':
      model.asks.set(e.ask.id, e.ask);
      agentOf(model, e.ask.agent_id, e.ask.next).machine = 'asking';
      break;
    case 'ask.answered': {
      model.asks.delete(e.askId);
      const a = model.agents.get(e.agentId);
      if (a?.machine === 'asking') a.machine = 'idle';
      break;
    }
    case 'run.finished':
      Object.assign(run, {
        status: e.status === 'running' ? 'stopped' : e.status,
        costUsd: e.totalCostUsd,
        elapsedMs: e.elapsedMs,
        error: e.error,
      });
      break;
    default:
      break;
  }
}
