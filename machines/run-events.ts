import type { StepFailure } from './step-failure.js';
import type {
  AgentAsk,
  BranchBudget,
  OnAskMode,
  ResolvedDecisionData,
  RunStatus,
  WidthReason,
} from './types.js';

/** Agent machine frames per state: top frames idle or invoking, callers awaiting their callee. */
export interface FrameCounts {
  idle: number;
  invoking: number;
  'awaiting-child': number;
  /** Agents that ended (with a result or a failure). */
  terminated: number;
  paused: number;
  /** Agents waiting for the answer to an `<ask>`. */
  asking: number;
}

/** A worker created by a `<fork>`. */
export interface ForkedWorker {
  id: string;
  state: string;
  attributes: Record<string, string>;
  /** The branch budgets it spends against (`<fork budget>`), when it has any. */
  budgets?: BranchBudget[];
}

/**
 * The one typed stream of what happens in a run. The supervisor emits the
 * step and agent events, the runtime the rest; the terminal, the debug log,
 * the trace and the server all read this stream, and text is made from it
 * only where it is shown.
 */
export type RunEvent =
  /** `workflow`: the short name of the run's workflow; `name`: the run's `--name` label, if it has one; `onAsk`: who answers its asks. */
  | {
      type: 'run.started';
      workflowId: string;
      workflow: string;
      name?: string;
      onAsk?: OnAskMode;
      resumed: boolean;
      at: number;
      budgetUsd: number;
      totalCostUsd: number;
      counts: FrameCounts;
    }
  /** `scope`: the key of the workflow the state is in, when it is not the run's own (a cross-workflow callee). */
  /** `reservedUsd`: what the step reserved of the run's budget (and its branches') before it started. */
  | { type: 'step.started'; agentId: string; state: string; scope?: string; reservedUsd?: number }
  | {
      type: 'step.done';
      agentId: string;
      /** The state that ran. */
      from: string;
      decision: ResolvedDecisionData;
      /** The agent's next state; null once it terminated. */
      to: string | null;
      /** The agent's session after the step. */
      session: string | null;
      /** Return frames on the agent's stack after the step. */
      depth: number;
      costUsd: number;
      totalCostUsd: number;
      /** The workers a `<fork>` created, in order. */
      workers: ForkedWorker[];
    }
  /**
   * What one step took, however it ended (emitted by the runtime just
   * before the step's `step.done`, or its agent's failure): the run history
   * and the traces read it. `outcome`: the transition's kind, `failed`, or
   * `stopped`; `width`: workers a fork created.
   */
  | {
      type: 'step.measured';
      agentId: string;
      state: string;
      scope?: string;
      /** The backend's name (`claude`, `pi`, `codex`), or `script`. */
      backend: string;
      /** The model asked for, as the state or the run named it. */
      model?: string;
      /** The models that answered its turns (a fallback model's too), as the agent CLI reported them. */
      answeredBy?: string[];
      turns: number;
      retries: number;
      reminders: number;
      costUsd: number;
      tokens: number;
      startedAt: number;
      wallMs: number;
      cpuMs: number;
      outcome: string;
      width?: number;
    }
  /**
   * One agent CLI invocation of a markdown step begins (`turn.started`, just
   * before its process starts) or ends (`turn.done`, with what it cost and,
   * when it failed, why). The traces read them.
   */
  | { type: 'turn.started'; agentId: string; state: string }
  | { type: 'turn.done'; agentId: string; costUsd: number; tokens?: number; error?: string }
  | ({ type: 'agent.forked'; parentId: string } & ForkedWorker)
  | {
      type: 'agent.paused';
      agentId: string;
      state: string;
      failure: StepFailure;
      totalCostUsd: number;
    }
  /** `worker`: a forked worker failed; it ended alone, and the run goes on. */
  | {
      type: 'agent.failed';
      agentId: string;
      state: string;
      failure: StepFailure;
      totalCostUsd: number;
      worker?: true;
    }
  /** A `<join>` got every worker it waited for: the agent goes on at `state` with `workers` entries as its input. */
  | { type: 'agent.joined'; agentId: string; state: string; workers: number }
  /** An agent asked a question (`<ask>`); it waits for an answer. */
  | { type: 'ask.created'; ask: AgentAsk }
  /** An ask that was already waiting when the run (re)started. */
  | { type: 'ask.pending'; ask: AgentAsk }
  /**
   * An ask got its answer (`text`), or its time ran out (`expired`: the agent
   * went to `timeout_next`, or failed). `gate`: what an answer to the cost
   * gate did: asked again (a new ask follows), or went on, forking `workers`
   * (and waiting for them when `joining`).
   */
  | {
      type: 'ask.answered';
      agentId: string;
      askId: string;
      expired: boolean;
      text?: string;
      gate?: { again: boolean; workers: number; joining: boolean };
    }
  | { type: 'print'; agentId: string; text: string }
  /** A tool call the state's permissions refused (Claude Code's `permission_denials`), as it happened; `input` as the model gave it. */
  | {
      type: 'permission.denied';
      agentId: string;
      state: string;
      tool: string;
      input: Record<string, unknown>;
      shown: string;
    }
  | { type: 'warning'; text: string }
  /**
   * How many turns the run starts at once against a backend's account
   * changed: lowered on a refusal (`rate-limited`: 429, `overloaded`: 529),
   * raised as turns succeed (`recovering`), and 0 until `until` on a usage
   * limit with a known reset (`usage-limit`); `paced`: the account's gate
   * sends its model requests at `perMinute` (the width is as it was).
   */
  | {
      type: 'width.changed';
      backend: string;
      width: number;
      was: number;
      ceiling: number;
      why: WidthReason;
      until?: string;
      /** `paced`: the requests a minute the account's gate sends, told by the API (`told`) or learned from its refusals. */
      perMinute?: number;
      told?: boolean;
    }
  /** Extra detail, shown with --verbose. */
  | { type: 'detail'; text: string }
  /** `asks`: every pending ask, when the run stopped to ask (status `asking`). */
  | {
      type: 'run.finished';
      workflowId: string;
      status: RunStatus;
      error?: string;
      totalCostUsd: number;
      steps: number;
      elapsedMs: number;
      asks?: AgentAsk[];
    };

/** Where a run's events go. */
export type RunEventSink = (event: RunEvent) => void;
