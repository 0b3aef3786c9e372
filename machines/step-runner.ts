import { fromCallback, type AnyActorRef } from 'xstate';
import type { StepEndEvent, StepInput, StepResult } from './agent-types.js';

/**
 * How one step runs: the composition root's step function (src/runtime/
 * step-actor.ts), or a test's fake. It settles with the step's result, or
 * rejects with the failure the agent records; `signal` aborts it, killing
 * its subprocess.
 */
export type RunStep = (input: StepInput, signal: AbortSignal) => Promise<StepResult>;

/** What a frame asks of the step runner, and what the supervisor tells it when the run halts. */
export type StepRunnerEvent =
  { type: 'step.run'; input: StepInput; frame: AnyActorRef } | { type: 'steps.abort' };

/** The step runner's system id: frames send it their steps. */
export const STEP_RUNNER_ID = 'steps';

/**
 * The run's one step runner, invoked by the supervisor: it runs each step a
 * frame sends it and sends the frame how it ended. One actor for the run
 * rather than a promise actor invoked per step, whose creation, registration
 * and the agent snapshot copies of its spawn and stop made each step cost
 * more: measured, 9% less orchestrator CPU at 10,000 workers alone, 5% less
 * through the CLI at 1,000 (docs/benchmarks.md).
 * Stopping the runner (the supervisor stops) or `steps.abort` (the run
 * halts) aborts every step in flight, and so kills its subprocess; the
 * end of an aborted step is dropped, as a stopped actor's would be.
 */
export function stepRunner(run: RunStep) {
  return fromCallback<StepRunnerEvent>(({ receive }) => {
    const running = new Map<AnyActorRef, AbortController>();
    const abortAll = () => {
      for (const controller of running.values()) controller.abort();
      running.clear();
    };
    const settle = (frame: AnyActorRef, controller: AbortController, end: StepEndEvent) => {
      if (running.get(frame) !== controller) return;
      running.delete(frame);
      frame.send(end);
    };
    receive((event) => {
      if (event.type === 'steps.abort') return abortAll();
      const { frame, input } = event;
      const controller = new AbortController();
      running.set(frame, controller);
      run(input, controller.signal).then(
        (output) => settle(frame, controller, { type: 'step.finished', output }),
        (error: unknown) => settle(frame, controller, { type: 'step.errored', error }),
      );
    });
    return abortAll;
  });
}
