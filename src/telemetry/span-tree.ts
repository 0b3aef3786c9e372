import {
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { RunEvent } from '../../machines/run-events.js';
import { traceEnvironment } from './trace-env.js';

/** What a run's trace knows of one agent: its span, and the step and turn it is in. */
interface AgentSpans {
  span: Span;
  state?: string;
  step?: Span;
  /** Turns the step took so far. */
  turns: number;
  /** What the agent's steps cost in this run. */
  costUsd: number;
  turn?: Span;
  /** The environment of the step's process (or of its turn's), made once per span. */
  env?: Record<string, string>;
}

/** The failure text of an event that carries one. */
type Failed = Extract<RunEvent, { type: 'agent.failed' | 'agent.paused' }>;

/**
 * Turns a run's events into OpenTelemetry spans, as they arrive: one span
 * for the run, one per agent under it, one per step under its agent, and one
 * per agent CLI invocation (turn) under its step. The parents of a step's
 * process (`env`) are read back from here. Loaded only when tracing is on.
 */
export class SpanTree {
  private run: Span | undefined;
  private workflowId = '';
  private readonly agents = new Map<string, AgentSpans>();

  /** `inherited`: the user's own OTEL_RESOURCE_ATTRIBUTES, kept in each step's. */
  constructor(
    private readonly tracer: Tracer,
    private readonly inherited?: string,
  ) {}

  /** Takes one event of the run. */
  event(e: RunEvent): void {
    switch (e.type) {
      case 'run.started':
        this.workflowId = e.workflowId;
        this.run = this.tracer.startSpan(`raymond run ${e.workflow}`, {
          attributes: {
            'raymond.workflow_id': e.workflowId,
            'raymond.workflow': e.workflow,
            'raymond.resumed': e.resumed,
            'raymond.budget_usd': e.budgetUsd,
            ...(e.name ? { 'raymond.run_name': e.name } : {}),
          },
        });
        break;
      case 'agent.forked':
        this.agent(e.id, { 'raymond.parent_agent_id': e.parentId });
        break;
      case 'step.started': {
        const a = this.agent(e.agentId);
        this.endStep(a, { 'raymond.outcome': 'stopped' });
        a.state = e.state;
        a.turns = 0;
        a.step = this.tracer.startSpan(
          `step ${e.state}`,
          {
            attributes: {
              ...this.who(e.agentId, e.state),
              ...(e.scope ? { 'raymond.scope': e.scope } : {}),
            },
          },
          trace.setSpan(ROOT_CONTEXT, a.span),
        );
        break;
      }
      case 'turn.started': {
        const a = this.agents.get(e.agentId);
        if (!a?.step) break;
        a.turn?.end();
        a.turns++;
        a.env = undefined;
        a.turn = this.tracer.startSpan(
          `turn ${e.state}`,
          {
            attributes: { ...this.who(e.agentId, e.state), 'raymond.turn': a.turns },
          },
          trace.setSpan(ROOT_CONTEXT, a.step),
        );
        break;
      }
      case 'turn.done': {
        const a = this.agents.get(e.agentId);
        if (!a?.turn) break;
        a.turn.setAttributes({
          'raymond.cost_usd': e.costUsd,
          ...(e.tokens !== undefined ? { 'raymond.tokens': e.tokens } : {}),
        });
        if (e.error !== undefined) failed(a.turn, e.error);
        a.turn.end();
        a.turn = undefined;
        a.env = undefined;
        break;
      }
      case 'step.measured': {
        const step = this.agents.get(e.agentId)?.step;
        step?.setAttributes({
          'raymond.backend': e.backend,
          'raymond.turns': e.turns,
          'raymond.retries': e.retries,
          'raymond.reminders': e.reminders,
          'raymond.cost_usd': e.costUsd,
          'raymond.tokens': e.tokens,
          'raymond.wall_ms': e.wallMs,
          'raymond.cpu_ms': e.cpuMs,
          'raymond.outcome': e.outcome,
          ...(e.model ? { 'gen_ai.request.model': e.model } : {}),
          // The last model to answer: a fallback model when the step's own was overloaded.
          ...(e.answeredBy?.length ? { 'gen_ai.response.model': e.answeredBy.at(-1)! } : {}),
          ...(e.width !== undefined ? { 'raymond.width': e.width } : {}),
        });
        break;
      }
      case 'step.done': {
        const a = this.agents.get(e.agentId);
        if (!a) break;
        a.costUsd += e.costUsd;
        this.endStep(a, {
          'raymond.cost_usd': e.costUsd,
          'raymond.outcome': e.decision.kind,
          ...(e.to !== null ? { 'raymond.next_state': e.to } : {}),
        });
        if (e.to === null) this.endAgent(e.agentId, 'result');
        break;
      }
      case 'agent.failed':
      case 'agent.paused':
        this.failAgent(e);
        break;
      case 'run.finished':
        this.finish(e);
        break;
      default:
        break;
    }
  }

  /**
   * The environment of the process an agent's step starts now: the open turn's span as its
   * parent (a markdown step's), else the step's (a script's); undefined outside a step.
   */
  env(agentId: string): Readonly<Record<string, string>> | undefined {
    const a = this.agents.get(agentId);
    const span = a?.turn ?? a?.step;
    if (!a || !span) return undefined;
    a.env ??= traceEnvironment(
      span.spanContext(),
      { workflowId: this.workflowId, agentId, state: a.state ?? '' },
      this.inherited,
    );
    return a.env;
  }

  private who(agentId: string, state: string): Attributes {
    return {
      'raymond.workflow_id': this.workflowId,
      'raymond.agent_id': agentId,
      'raymond.state': state,
    };
  }

  /** The agent's spans, its own started (under the run's) when it is first seen. */
  private agent(id: string, attributes: Attributes = {}): AgentSpans {
    let a = this.agents.get(id);
    if (!a) {
      const parent = this.run ? trace.setSpan(ROOT_CONTEXT, this.run) : ROOT_CONTEXT;
      const span = this.tracer.startSpan(
        `agent ${id}`,
        {
          attributes: {
            'raymond.workflow_id': this.workflowId,
            'raymond.agent_id': id,
            ...attributes,
          },
        },
        parent,
      );
      a = { span, turns: 0, costUsd: 0 };
      this.agents.set(id, a);
    }
    return a;
  }

  /** Ends an agent's open turn and step; `error` marks both failed. */
  private endStep(a: AgentSpans, attributes: Attributes, error?: string): void {
    if (a.turn) {
      if (error !== undefined) failed(a.turn, error);
      a.turn.end();
      a.turn = undefined;
    }
    if (a.step) {
      a.step.setAttributes(attributes);
      if (error !== undefined) failed(a.step, error);
      a.step.end();
      a.step = undefined;
    }
    a.env = undefined;
  }

  /** Ends an agent's span (and its open step's, with `error`: both failed). */
  private endAgent(id: string, outcome: string, error?: string, step: Attributes = {}): void {
    const a = this.agents.get(id);
    if (!a) return;
    this.endStep(a, { 'raymond.outcome': outcome, ...step }, error);
    a.span.setAttributes({ 'raymond.outcome': outcome, 'raymond.cost_usd': a.costUsd });
    if (error !== undefined) failed(a.span, error);
    a.span.end();
    this.agents.delete(id);
  }

  /** A step failed: its agent ends (failed, or paused until a resume), charged what the step spent. */
  private failAgent(e: Failed): void {
    const a = this.agents.get(e.agentId);
    if (!a) return;
    a.costUsd += e.failure.spentUsd;
    this.endAgent(
      e.agentId,
      e.type === 'agent.paused' ? 'paused' : 'failed',
      `${e.failure.code}: ${e.failure.message}`,
      { 'raymond.cost_usd': e.failure.spentUsd, 'raymond.error_code': e.failure.code },
    );
  }

  /** The run's end: every span still open ends with it (a stopped run leaves steps behind). */
  private finish(e: Extract<RunEvent, { type: 'run.finished' }>): void {
    // A run still `running` as it returns was stopped (Ctrl-C, SIGTERM): resumable.
    const outcome = e.status === 'running' ? 'stopped' : e.status;
    for (const id of [...this.agents.keys()])
      this.endAgent(id, outcome === 'completed' ? 'result' : outcome);
    if (!this.run) return;
    this.run.setAttributes({
      'raymond.cost_usd': e.totalCostUsd,
      'raymond.steps': e.steps,
      'raymond.outcome': outcome,
    });
    if (e.status === 'failed') failed(this.run, e.error ?? 'the run failed');
    this.run.end();
    this.run = undefined;
  }
}

/** Marks a span failed, with the failure's words. */
function failed(span: Span, message: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}
