import { join, relative } from 'node:path';
import type { StepInput } from '../../machines/agent.machine.js';
import type { WorktreeRef } from '../../machines/types.js';
import type { StepDependencies } from './step-context.js';

/** The folder a step got the agent, for the agent's record: its worktree's path and the directory in it. */
export interface AcquiredWorktree {
  cwd: string;
  worktree: WorktreeRef;
}

/** Whether `dir` is `top` or inside it. */
function inside(dir: string, top: string): boolean {
  const rel = relative(top, dir);
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith('/'));
}

/**
 * Before a step of an agent with a worktree: makes sure its branch is
 * checked out in a folder of the pool, getting one on the agent's first run
 * (or when its folder went), and runs the step there. The agent's directory
 * keeps its place inside the worktree (a `cd` the agent made in it).
 */
export async function takeWorktree(deps: Pick<StepDependencies, 'worktrees'>, input: StepInput): Promise<{ step: StepInput; acquired?: AcquiredWorktree }> {
  const agent = input.record;
  const w = agent.worktree;
  if (!w || w.removed !== undefined) return { step: input };
  const path = await deps.worktrees.acquire(w, agent.id);
  if (path === w.path) return { step: input };
  const cwd = w.path !== undefined && inside(agent.cwd, w.path) ? join(path, relative(w.path, agent.cwd)) : path;
  const acquired = { cwd, worktree: { ...w, path } };
  return { step: { ...input, record: { ...agent, ...acquired } }, acquired };
}
