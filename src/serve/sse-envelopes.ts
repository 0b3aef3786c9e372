import { widthText } from '../../machines/width-text.js';
import type { RunEvent } from '../../machines/run-events.js';
import { aliasesOf } from '../errors.js';
import { isMarkdown } from '../scope/extensions.js';

/** One event of `GET /runs/{id}/output`, shaped as `ray serve` sends it: `type` and the Go event's fields. */
export type Envelope = { type: string } & Record<string, unknown>;

/** A step's tag as `ray` names transitions. */
function transitionType(e: Extract<RunEvent, { type: 'step.done' }>): string {
  const d = e.decision;
  if (d.kind === 'reset' || d.kind === 'call' || d.kind === 'function')
    return d.workflow ? `${d.kind}_workflow` : d.kind;
  if (d.kind === 'fork' && d.workers.length === 0 && d.join) return 'join';
  if (d.kind === 'fork') return d.workers.some((w) => w.workflow) ? 'fork_workflow' : 'fork';
  return d.kind;
}

/**
 * The envelopes of `ray`'s event types that one RunEvent stands for (none,
 * one or two), with the Go field names `ray serve` sends (`AgentID`,
 * `StateName`...). The server adds `Timestamp`, `run_id` and, on the first,
 * the RunEvent itself as `raymond`, which Raymond's page reads.
 */
export function rayEnvelopes(e: RunEvent, runId: string, cancelled: boolean): Envelope[] {
  switch (e.type) {
    case 'run.started':
      return [{ type: 'workflow_started', WorkflowID: runId, Resumed: e.resumed }];
    case 'step.started':
      return [
        {
          type: 'state_started',
          AgentID: e.agentId,
          StateName: e.state,
          StateType: isMarkdown(e.state) ? 'markdown' : 'script',
        },
      ];
    case 'step.done': {
      const out: Envelope[] = [
        {
          type: 'state_completed',
          AgentID: e.agentId,
          StateName: e.from,
          CostUSD: e.costUsd,
          TotalCostUSD: e.totalCostUsd,
          SessionID: e.session ?? '',
        },
        {
          type: 'transition_occurred',
          AgentID: e.agentId,
          FromState: e.from,
          ToState: e.to ?? '',
          TransitionType: transitionType(e),
          Metadata: e.decision.kind === 'result' ? { result_payload: e.decision.payload } : {},
        },
      ];
      if (e.to === null && e.decision.kind === 'result')
        out.push({
          type: 'agent_terminated',
          AgentID: e.agentId,
          ResultPayload: e.decision.payload,
        });
      return out;
    }
    case 'agent.forked':
      return [
        {
          type: 'agent_spawned',
          ParentAgentID: e.parentId,
          NewAgentID: e.id,
          InitialState: e.state,
        },
      ];
    case 'agent.paused':
      return [{ type: 'agent_paused', AgentID: e.agentId, Reason: e.failure.message }];
    case 'agent.joined':
      return [{ type: 'agent_joined', AgentID: e.agentId, StateName: e.state, Workers: e.workers }];
    case 'agent.failed':
      return [
        {
          type: 'error_occurred',
          AgentID: e.agentId,
          ErrorType: e.failure.code,
          // A renamed code's old names, so a client matching them keeps working.
          ...(aliasesOf(e.failure.code).length > 0
            ? { ErrorAliases: aliasesOf(e.failure.code) }
            : {}),
          ErrorMessage: e.failure.message,
          CurrentState: e.state,
          IsRetryable: false,
        },
      ];
    case 'ask.created':
    case 'ask.pending':
      return [
        {
          type: 'agent_ask_started',
          AgentID: e.ask.agent_id,
          AskID: e.ask.id,
          Prompt: e.ask.prompt,
          NextState: e.ask.next,
          TimeoutAt: e.ask.timeout_at ?? '',
        },
      ];
    case 'ask.answered':
      return [
        { type: 'agent_ask_resolved', AgentID: e.agentId, AskID: e.askId, TimedOut: e.expired },
      ];
    case 'print':
      return [{ type: 'progress_message', AgentID: e.agentId, Message: e.text }];
    case 'warning':
      return [{ type: 'warning', Message: e.text }];
    case 'width.changed':
      // Raymond's own, in `ray`'s fields' style: how many turns the run starts at once against an account.
      return [
        {
          type: 'width_changed',
          Backend: e.backend,
          Width: e.width,
          Was: e.was,
          Ceiling: e.ceiling,
          Reason: e.why,
          Until: e.until ?? '',
          RequestsPerMinute: e.perMinute ?? 0,
          Message: widthText(e),
        },
      ];
    case 'permission.denied':
      // `ray` has no such event: Raymond's own name, in its fields' style.
      return [
        {
          type: 'permission_denied',
          AgentID: e.agentId,
          StateName: e.state,
          ToolName: e.tool,
          ToolInput: e.input,
          Message: e.shown,
        },
      ];
    case 'step.measured':
      // Raymond's own too: what a step took, which the run page's cost-by-state table sums.
      return [
        {
          type: 'state_measured',
          AgentID: e.agentId,
          StateName: e.state,
          ...(e.scope !== undefined ? { Scope: e.scope } : {}),
          Backend: e.backend,
          Model: e.model ?? '',
          Turns: e.turns,
          Retries: e.retries,
          Reminders: e.reminders,
          CostUSD: e.costUsd,
          Tokens: e.tokens,
          WallMs: e.wallMs,
          CPUMs: e.cpuMs,
          Outcome: e.outcome,
          ...(e.width !== undefined ? { Width: e.width } : {}),
        },
      ];
    case 'detail':
    case 'turn.started':
    case 'turn.done':
      return [];
    case 'run.finished': {
      // How the run itself ended comes first: a cancel that came as it completed or failed cancelled nothing.
      if (e.status === 'completed')
        return [{ type: 'workflow_completed', WorkflowID: runId, TotalCostUSD: e.totalCostUsd }];
      if (e.status === 'failed')
        return [
          {
            type: 'workflow_failed',
            WorkflowID: runId,
            TotalCostUSD: e.totalCostUsd,
            Error: e.error ?? '',
          },
        ];
      if (cancelled && e.status !== 'budget_exceeded')
        return [{ type: 'workflow_cancelled', WorkflowID: runId, TotalCostUSD: e.totalCostUsd }];
      return [
        {
          type: 'workflow_paused',
          WorkflowID: runId,
          TotalCostUSD: e.totalCostUsd,
          Status: e.status,
        },
      ];
    }
  }
}
