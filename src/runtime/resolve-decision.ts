import { stat } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { workerId } from '../../machines/apply-decision.js';
import type { AgentRecord, Decision, WorktreeRef, WorktreeRequest } from '../../machines/types.js';
import { createWorktree, finishWorktree } from '../worktrees/git-worktrees.js';
import { RaymondError } from '../errors.js';
import type { Scope } from '../scope/scope.js';

async function resolveCd(agent: AgentRecord, cd: string, where: string): Promise<string> {
  const dir = resolvePath(agent.cwd, cd);
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new RaymondError('ERR_CD', `cd="${cd}" is not a directory (resolved to ${dir})`, { file: where });
  }
  return dir;
}

/** What resolving a decision needs beyond the scope. */
export interface ResolveContext {
  workflowId: string;
  /** The parent's fork counter as persisted: only its own steps advance it. */
  forkCounter: (agentId: string) => number;
}

async function makeWorktree(ctx: ResolveContext, agent: AgentRecord, agentId: string, request: WorktreeRequest): Promise<WorktreeRef> {
  const w = await createWorktree({ cwd: agent.cwd, workflowId: ctx.workflowId, agentId, name: request.name, ...(request.base ? { base: request.base } : {}) });
  return { name: request.name, ...w };
}

/**
 * Resolves every state name and directory in a decision before it is
 * applied, creates the worktrees it asks for, and settles the worktree of an
 * agent that terminates (removed when untouched, kept for review otherwise).
 */
export async function resolveDecision(decision: Decision, agent: AgentRecord, scope: Scope, where: string, ctx: ResolveContext): Promise<Decision> {
  const r = (name: string) => scope.resolve(name, where);
  switch (decision.kind) {
    case 'goto':
      return { ...decision, target: r(decision.target) };
    case 'reset': {
      const target = r(decision.target);
      if (decision.worktree) return { ...decision, target, created: await makeWorktree(ctx, agent, agent.id, decision.worktree) };
      return { ...decision, target, cd: decision.cd === undefined ? undefined : await resolveCd(agent, decision.cd, where) };
    }
    case 'call':
    case 'function':
      return { ...decision, target: r(decision.target), returnTo: r(decision.returnTo) };
    case 'fork': {
      const next = r(decision.next);
      const workers = decision.workers.map((w) => ({ ...w, target: r(w.target) }));
      const counter = ctx.forkCounter(agent.id);
      for (const [i, w] of workers.entries()) {
        // The supervisor names workers in this order with the same counter.
        if (w.worktree) w.created = await makeWorktree(ctx, agent, workerId(agent.id, w.target, counter + i + 1), w.worktree);
        else if (w.cd !== undefined) w.cd = await resolveCd(agent, w.cd, where);
      }
      return { ...decision, next, workers };
    }
    case 'result': {
      if (agent.stack.length > 0 || !agent.worktree || agent.worktree.removed !== undefined) return decision;
      const summary = await finishWorktree(agent.worktree);
      return { ...decision, worktree: { ...agent.worktree, commits: summary.commits, diffstat: summary.diffstat, dirty: summary.dirty, removed: summary.removed } };
    }
  }
}

/** Errors a reminder can fix: the reply, not the workflow, was wrong. */
export const REMINDABLE = new Set(['ERR_TAG_MISSING', 'ERR_TAG_MULTIPLE', 'ERR_TAG_PARSE', 'ERR_POLICY', 'ERR_TARGET_INVALID', 'ERR_STATE_NOT_FOUND', 'ERR_STATE_AMBIGUOUS', 'ERR_STATE_UNSUPPORTED', 'ERR_CD']);
