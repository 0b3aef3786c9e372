import type { RunEvent } from '../../machines/run-events.js';
import type { StepResult } from '../../machines/agent.machine.js';
import type { StepFailure } from '../../machines/step-failure.js';
import type { Execution } from '../executors/executor.js';

/**
 * What one step took, counted while it runs: the markdown step adds each of
 * its turns, a script its one execution. It becomes the `step.measured`
 * event however the step ends, so a failed or stopped step is in the run
 * history with what it spent.
 */
export class StepTally {
  /** The backend's name, or `script`. */
  backend = 'script';
  model: string | undefined;
  /** The models that answered its turns, in the order they first did. */
  readonly answeredBy: string[] = [];
  turns = 0;
  retries = 0;
  reminders = 0;
  tokens = 0;
  cpuMs = 0;
  readonly startedAt = Date.now();

  /** Counts one agent CLI invocation or script execution (a failed one too: what it reported). */
  add(execution: Pick<Execution, 'tokens' | 'cpuMs'> | undefined, turn: boolean): void {
    if (turn) this.turns++;
    this.tokens += execution?.tokens ?? 0;
    this.cpuMs += execution?.cpuMs ?? 0;
  }

  /** Notes the models that answered a turn (undefined: the CLI's default, not named). */
  answered(models: ReadonlyArray<string | undefined>): void {
    for (const m of models)
      if (m !== undefined && !this.answeredBy.includes(m)) this.answeredBy.push(m);
  }

  /** The event for a step that ended with `result`, or failed with `failure`. */
  event(
    agentId: string,
    state: string,
    scope: string | undefined,
    end: { result: StepResult } | { failure: StepFailure; stopped: boolean },
  ): Extract<RunEvent, { type: 'step.measured' }> {
    const e: Extract<RunEvent, { type: 'step.measured' }> = {
      type: 'step.measured',
      agentId,
      state,
      backend: this.backend,
      turns: this.turns,
      retries: this.retries,
      reminders: this.reminders,
      costUsd: 'result' in end ? end.result.costUsd : end.failure.spentUsd,
      tokens: this.tokens,
      startedAt: this.startedAt,
      wallMs: Date.now() - this.startedAt,
      cpuMs: Math.round(this.cpuMs),
      outcome: 'result' in end ? end.result.decision.kind : end.stopped ? 'stopped' : 'failed',
    };
    if (scope !== undefined) e.scope = scope;
    if (this.model !== undefined) e.model = this.model;
    if (this.answeredBy.length > 0) e.answeredBy = [...this.answeredBy];
    if ('result' in end && end.result.decision.kind === 'fork')
      e.width = end.result.decision.workers.length;
    return e;
  }
}
