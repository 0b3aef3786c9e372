import { stat } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { fromPromise } from 'xstate';
import type { StepInput, StepResult } from '../../machines/agent.machine.js';
import type { AgentRecord, Decision } from '../../machines/types.js';
import { RaymondError } from '../errors.js';
import type { StateExecutor } from '../executors/executor.js';
import type { LanguageService } from '../language/language-service.js';
import { templateVariables } from '../language/render.js';
import { isMarkdown } from '../scope/extensions.js';
import type { Scope } from '../scope/scope.js';
import type { Reporter } from './reporter.js';

export interface StepDependencies {
  workflowId: string;
  scope: Scope;
  language: LanguageService;
  script: StateExecutor;
  markdown: StateExecutor | undefined;
  timeoutMs: number;
  reporter: Reporter;
}

async function resolveCd(agent: AgentRecord, cd: string, where: string): Promise<string> {
  const dir = resolvePath(agent.cwd, cd);
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new RaymondError('ERR_CD', `cd="${cd}" is not a directory (resolved to ${dir})`, { file: where });
  }
  return dir;
}

/** Resolves every state name and directory in a decision before it is applied. */
async function resolveDecision(decision: Decision, agent: AgentRecord, scope: Scope, where: string): Promise<Decision> {
  const r = (name: string) => scope.resolve(name, where);
  switch (decision.kind) {
    case 'goto':
      return { ...decision, target: r(decision.target) };
    case 'reset':
      return { ...decision, target: r(decision.target), cd: decision.cd === undefined ? undefined : await resolveCd(agent, decision.cd, where) };
    case 'call':
    case 'function':
      return { ...decision, target: r(decision.target), returnTo: r(decision.returnTo) };
    case 'fork': {
      const next = r(decision.next);
      const workers = [];
      for (const w of decision.workers) {
        workers.push({ ...w, target: r(w.target), cd: w.cd === undefined ? undefined : await resolveCd(agent, w.cd, where) });
      }
      return { ...decision, next, workers };
    }
    case 'result':
      return decision;
  }
}

function tail(text: string, max = 300): string {
  const t = text.trim().replace(/\s+/g, ' ');
  return t.length > max ? `...${t.slice(-max)}` : t;
}

/**
 * Builds the step actor: runs the agent's current state through its
 * executor and turns its output into a resolved decision. Aborting the actor
 * (stopping the agent) aborts the subprocess and any pool task.
 */
export function createRunStep(deps: StepDependencies) {
  const warned = new Set<string>();
  return fromPromise<StepResult, StepInput>(async ({ input, signal }) => {
    const agent = input.record;
    const where = deps.scope.display(agent.state);
    let prompt: string | undefined;
    let executor = deps.script;
    if (isMarkdown(agent.state)) {
      if (!deps.markdown) throw new RaymondError('ERR_STATE_UNSUPPORTED', 'markdown states need the Claude Code executor', { file: where });
      executor = deps.markdown;
      const text = await deps.scope.readText(agent.state);
      const variables = templateVariables({ workflowId: deps.workflowId, agentId: agent.id, input: agent.input, attributes: agent.attributes });
      const prepared = await deps.language.prepare({ text, file: where, variables }, signal);
      for (const w of prepared.warnings) {
        if (!warned.has(w)) deps.reporter.warn(w);
        warned.add(w);
      }
      prompt = prepared.prompt;
    }
    const execution = await executor.execute({ workflowId: deps.workflowId, agent, file: agent.state, scope: deps.scope, prompt, signal, timeoutMs: deps.timeoutMs });
    let interpretation;
    try {
      interpretation = await deps.language.interpret({ output: execution.output, file: where }, signal);
    } catch (err) {
      if (err instanceof RaymondError && prompt === undefined && (err.code === 'ERR_TAG_MISSING' || err.code === 'ERR_TAG_MULTIPLE')) {
        const shown = execution.output.trim() ? `; its output ended with: ${tail(execution.output)}` : '; it printed nothing';
        throw new RaymondError(err.code, `${err.message.slice(where.length + 2)}${shown}`, { file: where });
      }
      throw err;
    }
    for (const text of interpretation.prints) deps.reporter.print(agent.id, text);
    const decision = await resolveDecision(interpretation.decision, agent, deps.scope, where);
    return { decision, session: execution.session, costUsd: execution.costUsd };
  });
}
