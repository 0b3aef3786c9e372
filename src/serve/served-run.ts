import type { RunEvent } from '../../machines/run-events.js';
import type { AgentAsk, BranchBudget, WorkflowState } from '../../machines/types.js';
import type { RunControl } from '../runtime/run-types.js';
import { LOGGED_EVENTS, RECENT_EVENTS } from '../web/live-snapshot.js';
import { EventBuffer } from './event-buffer.js';
import { CostTable, stateKeyOf } from '../../machines/cost-table.js';
import { rayEnvelopes } from './sse-envelopes.js';

/** An agent as the server shows it: its state, its machine's state, its stack and what it cost. */
export interface AgentView {
  id: string;
  state: string;
  /** The agent machine's state (`idle`, `invoking`), or how it ended or waits (`terminated`, `failed`, `paused`, `asking`). */
  machine: 'idle' | 'invoking' | 'awaiting-child' | 'terminated' | 'failed' | 'paused' | 'asking';
  /** Return frames on its stack: callers in `awaiting-child`. */
  depth: number;
  costUsd: number;
  result?: string;
  /** What its running step reserved of the budgets (0 between steps). */
  reservedUsd?: number;
  /** The branch budgets it spends against (`<fork budget>`). */
  budgets?: BranchBudget[];
}

/** Statuses a run's own end gives it for good: a cancel that comes too late to stop it does not change them. */
const ENDED_BY_ITSELF = new Set(['completed', 'failed', 'budget_exceeded']);
/** Statuses after which a run never runs again in this pool. */
const FINAL = new Set([...ENDED_BY_ITSELF, 'cancelled']);

/**
 * One run of the server: what its events told so far (agents, asks, cost,
 * status), its numbered event stream, and the handles that stop or answer
 * it. It follows the run only through its events, as the terminal does.
 */
export class ServedRun {
  readonly events = new EventBuffer();
  readonly agents = new Map<string, AgentView>();
  readonly asks = new Map<string, AgentAsk>();
  /** Asks an answer has claimed and is storing files for: any other answer to them is refused. */
  readonly answering = new Set<string>();
  readonly drain = new AbortController();
  readonly kill = new AbortController();
  control: RunControl | undefined;
  status = 'running';
  costUsd = 0;
  budgetUsd = 0;
  result: string | undefined;
  error: string | undefined;
  endedAt: number | undefined;
  cancelled = false;
  /** The process that runs it when another server of the project does (found locked at start): this one only lists it. */
  heldBy: number | undefined;
  /** Steps done while this server followed the run. */
  steps = 0;
  /** Tool calls the states' permissions refused while this server followed the run. */
  denials = 0;
  /** Each backend's account width once it changed (`width.changed`), by backend. */
  readonly widths = new Map<string, Omit<Extract<RunEvent, { type: 'width.changed' }>, 'type'>>();
  /** The run's cost by state while this server followed it (a run found in the pool reads it from the history). */
  readonly byState = new CostTable();
  /** The last events the page's log shows, with the id of the stream's last event when each came (a page opened late still has some history). */
  readonly recent: Array<{ seq: number; event: RunEvent }> = [];
  /** Settles when the run's promise did (never rejects). */
  done: Promise<void> = Promise.resolve();
  /** Who follows the run's events in this process (an MCP call waiting for it). */
  private readonly watchers = new Set<(e: RunEvent | null) => void>();

  constructor(
    readonly id: string,
    /** The id of the workflow it runs (the registry's), or its scope's name for a run found in the pool. */
    readonly workflowId: string,
    /** What `raymond diagram` draws for it: the workflow's path. */
    readonly workflowPath: string,
    readonly stateFile: string,
    readonly startedAt: number,
    /** Called with each ask as it is asked (or found pending at a resume), to stage its files. */
    private readonly onAsk: (run: ServedRun, ask: AgentAsk) => void = () => {},
  ) {}

  /** A run read from its state file: its agents and asks as the file has them. */
  seed(state: WorkflowState): void {
    this.costUsd = state.total_cost_usd;
    this.budgetUsd = state.options.budget_usd;
    for (const a of state.agents) {
      const machine =
        a.status === 'active'
          ? a.ask
            ? 'asking'
            : a.joining
              ? 'awaiting-child'
              : 'idle'
          : a.status;
      this.agents.set(a.id, {
        id: a.id,
        state: a.state,
        machine,
        depth: a.stack.length,
        costUsd: 0,
        ...(a.result !== undefined ? { result: a.result } : {}),
        ...(a.budgets ? { budgets: a.budgets } : {}),
      });
    }
    this.result = state.results.main;
    this.error = state.error;
  }

  get ended(): boolean {
    return this.endedAt !== undefined;
  }

  private agent(id: string, state = ''): AgentView {
    let a = this.agents.get(id);
    if (!a) {
      a = { id, state, machine: 'idle', depth: 0, costUsd: 0 };
      this.agents.set(id, a);
    }
    return a;
  }

  /** Takes one event of the run: updates the view, then numbers it into the stream. */
  onEvent(e: RunEvent): void {
    switch (e.type) {
      case 'run.started':
        this.budgetUsd = e.budgetUsd;
        this.costUsd = e.totalCostUsd;
        break;
      case 'step.measured':
        this.byState.add(stateKeyOf(e), e);
        break;
      case 'step.started': {
        const a = this.agent(e.agentId);
        a.state = e.state;
        a.machine = 'invoking';
        if (e.reservedUsd) a.reservedUsd = e.reservedUsd;
        break;
      }
      case 'step.done': {
        const a = this.agent(e.agentId);
        a.state = e.to ?? e.from;
        a.machine =
          e.to === null
            ? 'terminated'
            : [...this.asks.values()].some((k) => k.agent_id === e.agentId)
              ? 'asking'
              : e.decision.kind === 'fork' && e.decision.join
                ? 'awaiting-child'
                : 'idle';
        a.depth = e.depth;
        a.costUsd += e.costUsd;
        delete a.reservedUsd;
        this.costUsd = e.totalCostUsd;
        this.steps++;
        if (e.decision.kind === 'result' && e.to === null) {
          a.result = e.decision.payload;
          if (e.agentId === 'main') this.result = e.decision.payload;
        }
        for (const w of e.workers) this.agent(w.id, w.state);
        break;
      }
      case 'agent.forked': {
        const a = this.agent(e.id, e.state);
        if (e.budgets) a.budgets = e.budgets;
        break;
      }
      case 'permission.denied':
        this.denials++;
        break;
      case 'width.changed': {
        const { type: _type, ...width } = e;
        this.widths.set(e.backend, width);
        break;
      }
      case 'agent.paused':
        this.agent(e.agentId).machine = 'paused';
        delete this.agent(e.agentId).reservedUsd;
        break;
      case 'agent.joined': {
        const a = this.agent(e.agentId);
        a.state = e.state;
        a.machine = 'idle';
        break;
      }
      case 'agent.failed':
        this.agent(e.agentId).machine = 'failed';
        delete this.agent(e.agentId).reservedUsd;
        break;
      case 'ask.created':
      case 'ask.pending':
        this.asks.set(e.ask.id, e.ask);
        this.agent(e.ask.agent_id, e.ask.next).machine = 'asking';
        this.onAsk(this, e.ask);
        break;
      case 'ask.answered':
        this.asks.delete(e.askId);
        this.agent(e.agentId).machine = 'idle';
        break;
      case 'run.finished':
        this.costUsd = e.totalCostUsd;
        this.error = e.error;
        break;
      default:
        break;
    }
    if (!this.ended) this.status = this.asks.size > 0 ? 'asking' : 'running';
    this.publish(e);
    for (const w of this.watchers) w(e);
    if (LOGGED_EVENTS.has(e.type)) {
      this.recent.push({ seq: this.events.lastId, event: e });
      if (this.recent.length > RECENT_EVENTS) this.recent.shift();
    }
  }

  private publish(e: RunEvent): void {
    const at = new Date().toISOString();
    rayEnvelopes(e, this.id, this.cancelled).forEach((env, i) => {
      this.events.push(
        JSON.stringify({
          ...env,
          Timestamp: at,
          run_id: this.id,
          ...(i === 0 ? { raymond: e } : {}),
        }),
      );
    });
  }

  /**
   * The run's promise settled: its final status (its state file's), and
   * the end of its stream. A run cancelled while it was ending anyway
   * (completed, failed) keeps that status: `cancelled` is only a run the
   * cancel stopped.
   */
  finish(status: string, error?: string): void {
    if (this.ended) return;
    if (ENDED_BY_ITSELF.has(status)) this.cancelled = false;
    this.status = this.cancelled ? 'cancelled' : status;
    if (error !== undefined) this.error = error;
    this.endedAt = Date.now();
    this.asks.clear();
    this.events.end();
    for (const w of this.watchers) w(null);
    this.watchers.clear();
  }

  /**
   * Follows the run's events as the view took them, then `null` once it
   * ended (at once if it already had); returns how to stop following.
   */
  watch(listener: (e: RunEvent | null) => void): () => void {
    if (this.ended) {
      listener(null);
      return () => {};
    }
    this.watchers.add(listener);
    return () => this.watchers.delete(listener);
  }

  /** A run that ended before it began (its workflow would not open): failed, with a last event saying why. */
  failEarly(message: string): void {
    this.events.push(
      JSON.stringify({
        type: 'workflow_failed',
        WorkflowID: this.id,
        TotalCostUSD: 0,
        Error: message,
        Timestamp: new Date().toISOString(),
        run_id: this.id,
      }),
    );
    this.finish('failed', message);
  }

  /** Whether the run is over for good (not to be resumed at the next start). */
  get final(): boolean {
    return FINAL.has(this.status);
  }
}
