import { stat } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import type { StepInput } from '../../machines/agent.machine.js';
import { MAX_STACK_DEPTH, stackDepth } from '../../machines/frame-stack.js';
import { nameWorkers } from '../../machines/worker-names.js';
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

async function makeWorktree(workflowId: string, agent: AgentRecord, agentId: string, request: WorktreeRequest): Promise<WorktreeRef> {
  const w = await createWorktree({ cwd: agent.cwd, workflowId, agentId, name: request.name, ...(request.base ? { base: request.base } : {}) });
  return { name: request.name, ...w };
}

/**
 * Resolves every state name and directory in a decision before it is
 * applied, refuses a call past the deepest return stack, names forked
 * workers, creates the worktrees it asks for, and
 * settles the worktree of an agent that terminates (removed when untouched,
 * kept for review otherwise).
 */
export async function resolveDecision(decision: Decision, input: StepInput, scope: Scope, where: string, workflowId: string): Promise<Decision> {
  const agent = input.record;
  const r = (name: string) => scope.resolve(name, where);
  switch (decision.kind) {
    case 'goto':
      return { ...decision, target: r(decision.target) };
    case 'reset': {
      const target = r(decision.target);
      if (decision.worktree) return { ...decision, target, created: await makeWorktree(workflowId, agent, agent.id, decision.worktree) };
      return { ...decision, target, cd: decision.cd === undefined ? undefined : await resolveCd(agent, decision.cd, where) };
    }
    case 'call':
    case 'function':
      if (stackDepth(agent.stack) >= MAX_STACK_DEPTH) {
        throw new RaymondError('ERR_STACK_DEPTH', `<${decision.kind}> would make the return stack ${stackDepth(agent.stack) + 1} frames deep; at most ${MAX_STACK_DEPTH} are allowed (a recursion that never ends?)`, { file: where });
      }
      return { ...decision, target: r(decision.target), returnTo: r(decision.returnTo) };
    case 'fork': {
      const next = r(decision.next);
      const targets = decision.workers.map((w) => r(w.target));
      const ids = nameWorkers(agent.id, input.forkCount, targets);
      const workers = decision.workers.map((w, i) => ({ ...w, id: ids[i]!, target: targets[i]! }));
      for (const w of workers) {
        if (w.worktree) w.created = await makeWorktree(workflowId, agent, w.id, w.worktree);
        else if (w.cd !== undefined) w.cd = await resolveCd(agent, w.cd, where);
      }
      return { ...decision, next, workers };
    }
    case 'result': {
      if (agent.stack !== null || !agent.worktree || agent.worktree.removed !== undefined) return decision;
      const summary = await finishWorktree(agent.worktree);
      return { ...decision, worktree: { ...agent.worktree, commits: summary.commits, diffstat: summary.diffstat, dirty: summary.dirty, removed: summary.removed } };
    }
  }
}
