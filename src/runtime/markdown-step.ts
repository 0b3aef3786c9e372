import type { StepResult } from '../../machines/agent.machine.js';
import type { AgentRecord } from '../../machines/types.js';
import { EFFORTS, MODELS, parentSession, type SessionPlan } from '../claude/claude-argv.js';
import { RaymondError } from '../errors.js';
import { formatAllowed, reminder } from '../language/policy.js';
import { templateVariables } from '../language/render.js';
import { freshSessions, stepDebug, type StepDependencies } from './run-step.js';
import { REMINDABLE, resolveDecision } from './resolve-decision.js';

/** Reminder re-prompts after a reply that broke the rules, and retries after Claude Code failed. */
export const MAX_REMINDERS = 3;
export const MAX_RETRIES = 3;

function checkChoice(value: string | undefined, choices: readonly string[], what: string, where: string): void {
  if (value !== undefined && !choices.includes(value)) {
    throw new RaymondError('ERR_MODEL', `${what} "${value}" is not one of ${choices.join(', ')}`, { file: where });
  }
}

function startPlan(agent: AgentRecord): SessionPlan {
  if (agent.session && !agent.branchFrom) return { kind: 'resume', session: agent.session };
  if (agent.branchFrom) return { kind: 'branch', from: agent.branchFrom, id: agent.next_session };
  return { kind: 'fresh', id: agent.next_session };
}

function spentOf(err: RaymondError): { costUsd: number; session: string | null; sessionTotal: number | null } {
  const d = err.details as { costUsd?: number; session?: string | null; sessionTotal?: number | null };
  return { costUsd: d.costUsd ?? 0, session: d.session ?? null, sessionTotal: d.sessionTotal ?? null };
}

/**
 * Runs a markdown state: renders the prompt, runs Claude Code turns, and
 * reads the transition. A reply that breaks `allowed_transitions` gets a
 * reminder in the same session; a failed turn is retried from the state's
 * starting session; each turn is charged only its own cost.
 */
export async function runMarkdownStep(deps: StepDependencies, agent: AgentRecord, where: string, signal: AbortSignal): Promise<StepResult> {
  const markdown = deps.markdown;
  if (!markdown) throw new RaymondError('ERR_STATE_UNSUPPORTED', 'markdown states need the Claude Code executor', { file: where });
  const text = await deps.scope.readText(agent.state);
  const variables = templateVariables({ workflowId: deps.workflowId, agentId: agent.id, input: agent.input, attributes: agent.attributes, worktree: agent.worktree });
  const prepared = await deps.language.prepare({ text, file: where, variables }, signal);
  for (const w of prepared.warnings) deps.warnOnce(w);
  checkChoice(prepared.policy.model, MODELS, 'model', where);
  checkChoice(prepared.policy.effort, EFFORTS, 'effort', where);
  const allowed = prepared.policy.allowed;
  let first = startPlan(agent);
  const totals = new Map<string, number>();
  const base = (plan: SessionPlan) => {
    const sid = parentSession(plan);
    return sid === undefined ? undefined : (totals.get(sid) ?? deps.sessionCost(sid));
  };
  let plan = first;
  let prompt = prepared.prompt;
  let costUsd = 0;
  let retries = 0;
  let reminders = 0;
  for (;;) {
    let execution;
    try {
      execution = await markdown.execute({
        workflowId: deps.workflowId, agent, file: agent.state, scope: deps.scope, prompt, signal, timeoutMs: deps.timeoutMs,
        session: plan, costBase: base(plan), model: prepared.policy.model ?? deps.model, effort: prepared.policy.effort ?? deps.effort, debug: stepDebug(deps, agent),
      });
    } catch (err) {
      if (!(err instanceof RaymondError) || (err.code !== 'ERR_CLAUDE_FAILED' && err.code !== 'ERR_USAGE_LIMIT')) throw err;
      if ((err.details as { sessionInUse?: boolean }).sessionInUse && plan.kind !== 'resume' && plan.id) {
        // The reserved session exists: a killed run or a failed attempt began it. Continue it.
        deps.reporter.debug(`[${agent.id}] session ${plan.id} already exists; resuming it`);
        first = { kind: 'resume', session: plan.id };
        plan = first;
        continue;
      }
      const spent = spentOf(err);
      costUsd += spent.costUsd;
      if (spent.session && spent.sessionTotal !== null) totals.set(spent.session, spent.sessionTotal);
      const paid = { ...err.details, spentUsd: costUsd, sessionCosts: Object.fromEntries(totals) };
      if (err.code === 'ERR_USAGE_LIMIT' || signal.aborted || retries >= MAX_RETRIES) {
        const message = err.code === 'ERR_CLAUDE_FAILED' && !signal.aborted ? `${err.message.slice(where.length + 2)} (failed ${retries + 1} times; the agent is paused)` : err.message.slice(where.length + 2);
        throw new RaymondError(err.code, message, { file: where, details: paid });
      }
      retries++;
      deps.reporter.warn(`[${agent.id}] ${err.message}; retrying (${retries}/${MAX_RETRIES})`);
      plan = first;
      prompt = prepared.prompt;
      continue;
    }
    costUsd += execution.costUsd;
    if (execution.session && execution.sessionTotal !== undefined) totals.set(execution.session, execution.sessionTotal);
    try {
      const interpretation = await deps.language.interpret({ output: execution.output, file: where, allowed }, signal);
      for (const t of interpretation.prints) deps.reporter.print(agent.id, t);
      const decision = await resolveDecision(interpretation.decision, agent, deps.scope, where, deps);
      return { decision, session: execution.session, costUsd, sessionCosts: Object.fromEntries(totals), freshSessions: freshSessions(decision) };
    } catch (err) {
      if (!(err instanceof RaymondError) || !allowed || !REMINDABLE.has(err.code)) throw withCost(err, costUsd, totals);
      const problem = err.message.slice(where.length + 2);
      if (reminders >= MAX_REMINDERS) {
        throw withCost(new RaymondError('ERR_POLICY', `still no usable transition after ${MAX_REMINDERS} reminders: ${problem}; allowed: ${allowed.map(formatAllowed).join(', ')}`, { file: where }), costUsd, totals);
      }
      reminders++;
      deps.reporter.warn(`[${agent.id}] ${where}: ${problem}; reminding (${reminders}/${MAX_REMINDERS})`);
      prompt = prepared.prompt + reminder(allowed, problem);
      plan = execution.session ? { kind: 'resume', session: execution.session } : first;
    }
  }
}

/** Attaches what a failing step already cost, so the supervisor still charges it. */
function withCost(err: unknown, costUsd: number, totals: Map<string, number>): unknown {
  if (err instanceof RaymondError) Object.assign(err.details, { spentUsd: costUsd, sessionCosts: Object.fromEntries(totals) });
  return err;
}
