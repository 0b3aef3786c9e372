import { join, relative } from 'node:path';
import type { StepInput } from '../../machines/agent.machine.js';
import type {
  AgentRecord,
  ResolvedDecision,
  WorktreeMode,
  WorktreeRef,
  WorktreeRequest,
} from '../../machines/types.js';
import type { WorktreeStart } from '../../machines/worktree-types.js';
import type { Restarted, StepEnd } from '../worktrees/step-start.js';
import { pinBase, type PinnedBase } from '../worktrees/git-worktrees.js';
import type { StepDependencies } from './step-context.js';
import { exhaustive } from '../../machines/exhaustive.js';

/** The folder a step got the agent, for the agent's record: its worktree's path and the directory in it. */
export interface AcquiredWorktree {
  cwd: string;
  worktree: WorktreeRef;
}

/** What takeWorktree did: the step to run, the folder it got, and whether it put the folder back where the step started. */
export interface TakenWorktree {
  step: StepInput;
  acquired?: AcquiredWorktree;
  restarted?: Restarted;
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
 * keeps its place inside the worktree (a `cd` the agent made in it). The
 * first time this process hands the agent its folder, a folder not where
 * the agent's last step ended (a step of a killed run) is put back there.
 */
export async function takeWorktree(
  deps: Pick<StepDependencies, 'worktrees' | 'starts'>,
  input: StepInput,
): Promise<TakenWorktree> {
  const agent = input.record;
  const w = agent.worktree;
  if (!w || w.removed !== undefined) return { step: input };
  const path = await deps.worktrees.acquire(w, agent.id);
  const restarted = await deps.starts?.restart({ ...w, path }, agent.id);
  const again = restarted ? { restarted } : {};
  if (path === w.path) return { step: input, ...again };
  const cwd =
    w.path !== undefined && inside(agent.cwd, w.path)
      ? join(path, relative(w.path, agent.cwd))
      : path;
  const acquired = { cwd, worktree: { ...w, path } };
  return { step: { ...input, record: { ...agent, ...acquired } }, acquired, ...again };
}

/**
 * Where the agent's next step starts in its worktree, now that a step
 * ended (`decision`; none: it failed, and the agent stays): the folder as
 * the step left it, or the branch's head when the agent gave its folder
 * back to wait for its workers. None when the agent ends.
 */
export async function nextStart(
  deps: Pick<StepDependencies, 'starts'>,
  agent: AgentRecord,
  decision?: ResolvedDecision,
): Promise<WorktreeStart | undefined> {
  if (!deps.starts || !holds(agent)) return undefined;
  const end: StepEnd =
    decision?.kind === 'result' && agent.stack === null
      ? 'ends'
      : decision?.kind === 'fork' && decision.worktree !== undefined
        ? 'parked'
        : 'stays';
  return deps.starts.record(agent.worktree, agent.id, end);
}

/** Whether the agent works in a worktree it still has (not removed when it last ended). */
const holds = (agent: AgentRecord): agent is AgentRecord & { worktree: WorktreeRef } =>
  agent.worktree !== undefined && agent.worktree.removed === undefined;

/**
 * The worktree an agent will get when it first runs: its branch name and
 * the commit it starts from, pinned now. Forks of one output that share a
 * directory and a base ask git once.
 */
async function planWorktree(
  workflowId: string,
  mode: WorktreeMode,
  agent: AgentRecord,
  agentId: string,
  request: WorktreeRequest,
  pins: Map<string, Promise<PinnedBase>>,
): Promise<WorktreeRef> {
  const key = `${agent.cwd}\0${request.base ?? ''}`;
  let pin = pins.get(key);
  if (!pin) pins.set(key, (pin = pinBase(agent.cwd, request.base, request.name)));
  const { repo, base } = await pin;
  return {
    name: request.name,
    repo,
    branch: `raymond/${workflowId}/${agentId}`,
    base,
    from: base,
    mode,
    ...(request.sparse ? { sparse: request.sparse } : {}),
  };
}

/**
 * The git side of a resolved decision, once the step has it: plans the
 * worktrees it asks for (made when their agents first run; an agent that
 * has one keeps it, and its branch, through a reset), gives the folder of
 * an agent that waits on a `<join>` back to the pool (what it left
 * uncommitted saved on its branch), and settles the worktree of an agent
 * that ends (worktree-pool.ts: commits counted, work saved, an empty
 * branch deleted). Returns the decision with what that made.
 */
export async function settleWorktrees(
  deps: Pick<StepDependencies, 'workflowId' | 'worktreeMode' | 'worktrees'>,
  input: StepInput,
  decision: ResolvedDecision,
): Promise<ResolvedDecision> {
  const agent = input.record;
  const pins = new Map<string, Promise<PinnedBase>>();
  const plan = (agentId: string, request: WorktreeRequest) =>
    planWorktree(deps.workflowId, deps.worktreeMode, agent, agentId, request, pins);
  switch (decision.kind) {
    case 'reset':
      if (!decision.worktree || holds(agent)) return decision;
      return { ...decision, created: await plan(agent.id, decision.worktree) };
    case 'fork': {
      const workers = [];
      for (const w of decision.workers)
        workers.push(w.worktree ? { ...w, created: await plan(w.id, w.worktree) } : w);
      // A parent that waits for its workers gives its pooled worktree folder back meanwhile.
      const parked =
        decision.join && holds(agent)
          ? await deps.worktrees.suspend(agent.worktree, agent.id)
          : undefined;
      return { ...decision, workers, ...(parked ? { worktree: parked } : {}) };
    }
    case 'result':
      if (agent.stack !== null || !holds(agent)) return decision;
      return { ...decision, worktree: await deps.worktrees.finish(agent.worktree, agent.id) };
    // No worktree to plan: the agent stays in its own.
    case 'goto':
    case 'call':
    case 'function':
    case 'ask':
      return decision;
    default:
      return exhaustive(decision);
  }
}
