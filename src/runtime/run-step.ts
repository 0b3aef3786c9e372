import { randomUUID } from 'node:crypto';
import { fromPromise } from 'xstate';
import type { StepInput, StepResult } from '../../machines/agent.machine.js';
import { RaymondError } from '../errors.js';
import type { StateExecutor } from '../executors/executor.js';
import type { LanguageService } from '../language/language-service.js';
import { isMarkdown } from '../scope/extensions.js';
import type { Scope } from '../scope/scope.js';
import { runMarkdownStep } from './markdown-step.js';
import type { Reporter } from './reporter.js';
import { resolveDecision } from './resolve-decision.js';
import type { DebugLog, StepDebug } from '../state/debug-log.js';
import type { AgentRecord, Decision } from '../../machines/types.js';

export interface StepDependencies {
  workflowId: string;
  scope: Scope;
  language: LanguageService;
  script: StateExecutor;
  markdown: StateExecutor | undefined;
  timeoutMs: number;
  reporter: Reporter;
  /** `--model` / `--effort`: used when a state's frontmatter says nothing. */
  model?: string | undefined;
  effort?: string | undefined;
  /** Last known total cost of a Claude Code session. */
  sessionCost: (session: string) => number | undefined;
  /** Shows a warning once per run. */
  warnOnce: (text: string) => void;
  /** Debug logs, unless --no-debug. */
  debug?: DebugLog | undefined;
  /** A parent's fork counter as persisted, to name workers' worktrees. */
  forkCounter: (agentId: string) => number;
}

/** The debug-file opener for one step, if debug logs are on. */
export function stepDebug(deps: StepDependencies, agent: AgentRecord): (() => StepDebug) | undefined {
  const debug = deps.debug;
  return debug && (() => debug.step(agent.id, agent.state, isMarkdown(agent.state) ? 'markdown' : 'script'));
}

function tail(text: string, max = 300): string {
  const t = text.trim().replace(/\s+/g, ' ');
  return t.length > max ? `...${t.slice(-max)}` : t;
}

async function runScriptStep(deps: StepDependencies, input: StepInput, where: string, signal: AbortSignal): Promise<StepResult> {
  const agent = input.record;
  const execution = await deps.script.execute({ workflowId: deps.workflowId, agent, file: agent.state, scope: deps.scope, signal, timeoutMs: deps.timeoutMs, debug: stepDebug(deps, agent) });
  let interpretation;
  try {
    interpretation = await deps.language.interpret({ output: execution.output, file: where }, signal);
  } catch (err) {
    if (err instanceof RaymondError && (err.code === 'ERR_TAG_MISSING' || err.code === 'ERR_TAG_MULTIPLE')) {
      const shown = execution.output.trim() ? `; its output ended with: ${tail(execution.output)}` : '; it printed nothing';
      throw new RaymondError(err.code, `${err.message.slice(where.length + 2)}${shown}`, { file: where });
    }
    throw err;
  }
  for (const text of interpretation.prints) deps.reporter.print(agent.id, text);
  const decision = await resolveDecision(interpretation.decision, agent, deps.scope, where, deps);
  return { decision, session: null, costUsd: 0, freshSessions: freshSessions(decision) };
}

/** New session ids to reserve after a step: the agent's own, then one per forked worker. */
export function freshSessions(decision: Decision): string[] {
  return Array.from({ length: 1 + (decision.kind === 'fork' ? decision.workers.length : 0) }, () => randomUUID());
}

/**
 * Builds the step actor: runs the agent's current state (a script, or a
 * markdown prompt through Claude Code) and turns its output into a resolved
 * decision. Stopping the agent aborts the subprocess and any pool task.
 */
export function createRunStep(deps: StepDependencies) {
  return fromPromise<StepResult, StepInput>(async ({ input, signal }) => {
    const where = deps.scope.display(input.record.state);
    return isMarkdown(input.record.state) ? runMarkdownStep(deps, input.record, where, signal) : runScriptStep(deps, input, where, signal);
  });
}
