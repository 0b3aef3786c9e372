import type { StepInput, StepResult } from '../../machines/agent.machine.js';
import type { AgentRecord } from '../../machines/types.js';
import type { RunStep } from '../../machines/step-runner.js';
import { RaymondError, toStepFailure } from '../errors.js';
import type { Execution } from '../executors/executor.js';
import { cutNote } from '../executors/output-cut.js';
import { isMarkdown } from '../scope/extensions.js';
import { gateAfterFork, gateBeforeStep } from './cost-gate.js';
import { runMarkdownStep } from './markdown-step.js';
import { resolveDecision } from './resolve-decision.js';
import { nextStart, settleWorktrees, takeWorktree } from './step-worktree.js';
import { freshSessions, stepDebug, type StepDependencies } from './step-context.js';
import { StepTally } from './step-tally.js';

function tail(text: string, max = 300): string {
  const t = text.trim().replace(/\s+/g, ' ');
  return t.length > max ? `...${t.slice(-max)}` : t;
}

/** Says how much of a script's output was kept, when a cap cut it; tags were read from what was kept. */
function outputCut(execution: Execution): string | undefined {
  if (!execution.droppedBytes) return undefined;
  const kept = Buffer.byteLength(execution.output);
  return cutNote(kept, kept + execution.droppedBytes);
}

/** Runs a script state and reads its transition from what it printed. */
async function runScriptStep(
  deps: StepDependencies,
  input: StepInput,
  where: string,
  signal: AbortSignal,
  tally: StepTally,
): Promise<StepResult> {
  const agent = input.record;
  const scope = deps.scopes.of(agent.scope);
  const own = scope.scriptTimeoutMs?.(agent.state);
  const execution = await deps.script.execute({
    workflowId: deps.workflowId,
    agent,
    file: agent.state,
    scope,
    signal,
    timeoutMs: own ?? deps.timeoutMs,
    timeoutFromState: own !== undefined,
    debug: stepDebug(deps, agent),
    env: deps.traceEnv?.(agent.id),
    makeTaskFolder: await deps.tasks.usedBy(scope),
  });
  tally.add(execution, false);
  const cut = outputCut(execution);
  if (cut) deps.emit({ type: 'warning', text: `[${agent.id}] ${where}: ${cut}` });
  let interpretation;
  try {
    interpretation = await deps.language.interpret(
      { output: execution.output, file: where },
      signal,
    );
  } catch (err) {
    if (
      err instanceof RaymondError &&
      (err.code === 'ERR_TAG_MISSING' || err.code === 'ERR_TAG_MULTIPLE')
    ) {
      const shown = execution.output.trim()
        ? `; its output ended with: ${tail(execution.output)}`
        : '; it printed nothing';
      throw new RaymondError(err.code, `${err.message}${shown}${cut ? `; ${cut}` : ''}`, {
        file: where,
      });
    }
    throw err;
  }
  for (const text of interpretation.prints) deps.emit({ type: 'print', agentId: agent.id, text });
  const decision = await settleWorktrees(
    deps,
    input,
    await resolveDecision(interpretation.decision, input, deps, where),
  );
  return { decision, session: null, costUsd: 0, freshSessions: freshSessions(decision) };
}

/**
 * Builds the run's step function, which the step runner (machines/
 * step-runner.ts) calls for every step: runs the agent's current state (a
 * script, or a markdown prompt through Claude Code) and turns its output
 * into a resolved decision. A failure leaves as a StepFailure, which says
 * whether the agent pauses. The signal, aborted when the run halts or stops,
 * kills the subprocess and cancels any pool task.
 */
export function createRunStep(deps: StepDependencies): RunStep {
  return async (input: StepInput, signal: AbortSignal): Promise<StepResult> => {
    const scope = deps.scopes.of(input.record.scope);
    const where = scope.display(input.record.state);
    for (const w of scope.stateWarnings?.(input.record.state) ?? [])
      deps.warnOnce(`${where}: ${w}`);
    const tally = new StepTally();
    const { id, state, scope: scopeKey } = input.record;
    let held: AgentRecord | undefined;
    try {
      if (input.refused)
        throw new RaymondError('ERR_BRANCH_BUDGET', input.refused, { file: where });
      const gated = gateBeforeStep(deps.forecaster, input);
      if (gated) return gated;
      const { step, acquired, restarted } = await takeWorktree(deps, input);
      held = step.record;
      if (restarted)
        deps.emit({
          type: 'warning',
          text: `[${id}] ${where}: runs again from where it started (${restarted.from.slice(0, 10)}), after a run that was stopped during it; what that run's step left is kept on ${restarted.branch}`,
        });
      // Made before the agent's first step in a workflow that uses task folders, and only there.
      if (await deps.tasks.usedBy(scope))
        await deps.tasks.ensure(deps.tasks.of(step.record), where);
      const ran = await (isMarkdown(step.record.state)
        ? runMarkdownStep(deps, step, where, signal, tally)
        : runScriptStep(deps, step, where, signal, tally));
      deps.emit(tally.event(id, state, scopeKey, { result: ran }));
      const result = gateAfterFork(deps.forecaster, step, ran);
      const startsNext = await nextStart(deps, step.record, result.decision);
      return {
        ...result,
        ...(acquired ? { acquired } : {}),
        ...(startsNext ? { startsNext } : {}),
      };
    } catch (err) {
      const failure = toStepFailure(err);
      // Stopped by the run, or by --budget-hard: a step cut short, not one that failed.
      const stopped = signal.aborted || failure.budget === true;
      deps.emit(tally.event(id, state, scopeKey, { failure, stopped }));
      // A step that failed, not one the run stopped: the agent's next attempt starts where it left the folder.
      if (held && !signal.aborted) {
        const startsNext = await nextStart(deps, held).catch(() => undefined);
        if (startsNext) failure.startsNext = startsNext;
      }
      // The machine receives the failure as plain data (it is stored in the state file), not as an Error.
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      throw failure;
    }
  };
}
