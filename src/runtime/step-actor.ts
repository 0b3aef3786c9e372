import { fromPromise } from 'xstate';
import type { StepInput, StepResult } from '../../machines/agent.machine.js';
import { toStepFailure } from '../errors.js';
import { isMarkdown } from '../scope/extensions.js';
import { runMarkdownStep } from './markdown-step.js';
import { runScriptStep } from './script-step.js';
import type { StepDependencies } from './step-context.js';

/**
 * Builds the step actor: runs the agent's current state (a script, or a
 * markdown prompt through Claude Code) and turns its output into a resolved
 * decision. A failure leaves as a StepFailure, which says whether the agent
 * pauses. Stopping the agent aborts the subprocess and any pool task.
 */
export function createRunStep(deps: StepDependencies) {
  return fromPromise<StepResult, StepInput>(async ({ input, signal }) => {
    const where = deps.scope.display(input.record.state);
    try {
      return await (isMarkdown(input.record.state) ? runMarkdownStep(deps, input, where, signal) : runScriptStep(deps, input, where, signal));
    } catch (err) {
      throw toStepFailure(err);
    }
  });
}
