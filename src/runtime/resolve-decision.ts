import { stat } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import type { StepInput } from '../../machines/agent.machine.js';
import { MAX_STACK_DEPTH, stackDepth } from '../../machines/frame-stack.js';
import { nameWorkers } from '../../machines/worker-names.js';
import { MAX_WORKFLOW_DEPTH, type AgentRecord, type Decision, type PendingAsk, type WorkflowTarget, type WorktreeMode, type WorktreeRef, type WorktreeRequest } from '../../machines/types.js';
import { RaymondError } from '../errors.js';
import { renderTemplate } from '../language/render.js';
import { pinBase, type PinnedBase } from '../worktrees/git-worktrees.js';
import type { StepDependencies } from './step-context.js';

async function resolveCd(agent: AgentRecord, cd: string, where: string): Promise<string> {
  const dir = resolvePath(agent.cwd, cd);
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new RaymondError('ERR_CD', `cd="${cd}" is not a directory (resolved to ${dir})`, { file: where });
  }
  return dir;
}

/**
 * The worktree an agent will get when it first runs: its branch name and
 * the commit it starts from, pinned now. Forks of one output that share a
 * directory and a base ask git once.
 */
async function planWorktree(workflowId: string, mode: WorktreeMode, agent: AgentRecord, agentId: string, request: WorktreeRequest, pins: Map<string, Promise<PinnedBase>>): Promise<WorktreeRef> {
  const key = `${agent.cwd}\0${request.base ?? ''}`;
  let pin = pins.get(key);
  if (!pin) pins.set(key, (pin = pinBase(agent.cwd, request.base, request.name)));
  const { repo, base } = await pin;
  return { name: request.name, repo, branch: `raymond/${workflowId}/${agentId}`, base, mode, ...(request.sparse ? { sparse: request.sparse } : {}) };
}

/** A cross-workflow tag's callee opened (relative to the agent's scope), and the state it starts at. */
async function openCallee(workflow: WorkflowTarget, agent: AgentRecord, deps: Pick<StepDependencies, 'scopes'>, tag: string, where: string): Promise<{ entry: string; workflow: WorkflowTarget }> {
  const depth = agent.workflow_depth ?? 0;
  if (depth >= MAX_WORKFLOW_DEPTH) {
    throw new RaymondError('ERR_WORKFLOW_DEPTH', `<${tag}>${workflow.spec}</${tag}> would nest workflows ${depth + 1} deep; at most ${MAX_WORKFLOW_DEPTH} are allowed (do two workflows call each other?)`, { file: where });
  }
  const opened = await deps.scopes.open(workflow.spec, agent.scope, where);
  return { entry: opened.entry, workflow: { spec: workflow.spec, scope: opened.key, name: opened.name } };
}

/**
 * Resolves every state name and directory in a decision before it is
 * applied, refuses a call past the deepest return stack, names forked
 * workers, plans the worktrees it asks for (made when their agents first
 * run), and settles the worktree of an agent that terminates (worktree-pool.ts).
 */
export async function resolveDecision(decision: Decision, input: StepInput, deps: Pick<StepDependencies, 'scopes' | 'workflowId' | 'worktrees' | 'worktreeMode' | 'tasks' | 'onAsk'>, where: string): Promise<Decision> {
  const agent = input.record;
  const scope = deps.scopes.of(agent.scope);
  const r = (name: string) => scope.resolve(name, where);
  // As `ray` does, a cross-workflow tag's input may name the caller's run, id and task folder.
  const rendered = (input: string | undefined) => (input === undefined ? undefined : renderTemplate(input, { workflow_id: deps.workflowId, agent_id: agent.id, task_folder: deps.tasks.of(agent) }));
  const pins = new Map<string, Promise<PinnedBase>>();
  const plan = (agentId: string, request: WorktreeRequest) => planWorktree(deps.workflowId, deps.worktreeMode, agent, agentId, request, pins);
  switch (decision.kind) {
    case 'goto':
      return { ...decision, target: r(decision.target) };
    case 'reset': {
      let target: string;
      if (decision.workflow) {
        // A <reset-workflow> leaves the depth behind: it may go anywhere, at any depth.
        const opened = await openCallee(decision.workflow, { ...agent, workflow_depth: 0 }, deps, 'reset-workflow', where);
        target = opened.entry;
        decision = { ...decision, workflow: opened.workflow, input: rendered(decision.input) };
      } else {
        target = r(decision.target);
      }
      if (decision.newTask) {
        // The agent's next own folder; an agent that shared its parent's (number 0) gets its first.
        const number = (agent.task_number ?? 1) + 1;
        decision = { ...decision, taskFolder: { path: deps.tasks.path(agent.id, number), number } };
      }
      if (decision.worktree) {
        // An agent that already has a worktree keeps it (and its branch) through a reset.
        if (agent.worktree && agent.worktree.removed === undefined) return { ...decision, target };
        return { ...decision, target, created: await plan(agent.id, decision.worktree) };
      }
      return { ...decision, target, cd: decision.cd === undefined ? undefined : await resolveCd(agent, decision.cd, where) };
    }
    case 'call':
    case 'function':
      if (stackDepth(agent.stack) >= MAX_STACK_DEPTH) {
        throw new RaymondError('ERR_STACK_DEPTH', `<${decision.kind}> would make the return stack ${stackDepth(agent.stack) + 1} frames deep; at most ${MAX_STACK_DEPTH} are allowed (a recursion that never ends?)`, { file: where });
      }
      if (decision.workflow) {
        const returnTo = r(decision.returnTo);
        const opened = await openCallee(decision.workflow, agent, deps, `${decision.kind}-workflow`, where);
        const cd = decision.cd === undefined ? undefined : await resolveCd(agent, decision.cd, where);
        return { ...decision, target: opened.entry, returnTo, workflow: opened.workflow, cd, input: rendered(decision.input) };
      }
      return { ...decision, target: r(decision.target), returnTo: r(decision.returnTo) };
    case 'fork': {
      const next = r(decision.next);
      const callees = await Promise.all(decision.workers.map((w) => (w.workflow ? openCallee(w.workflow, agent, deps, 'fork-workflow', where) : Promise.resolve(undefined))));
      const targets = decision.workers.map((w, i) => callees[i]?.entry ?? r(w.target));
      // A workflow's worker is named after the workflow (main_other1), a state's after the state.
      const names = nameWorkers(agent.id, input.forkCount, decision.workers.map((w, i) => callees[i]?.workflow.name ?? targets[i]!));
      const workers = decision.workers.map((w, i) => ({ ...w, id: names[i]!, target: targets[i]!, ...(callees[i] ? { workflow: callees[i].workflow, input: rendered(w.input) } : {}) }));
      for (const w of workers) {
        w.taskFolder = w.inheritTask ? { path: deps.tasks.of(agent), number: 0 } : { path: deps.tasks.path(w.id, 1), number: 1 };
        if (w.worktree) w.created = await plan(w.id, w.worktree);
        else if (w.cd !== undefined) w.cd = await resolveCd(agent, w.cd, where);
      }
      // A parent that waits for its workers gives its pooled worktree folder back meanwhile.
      const parked = decision.join && agent.worktree && agent.worktree.removed === undefined ? await deps.worktrees.suspend(agent.worktree, agent.id) : undefined;
      return { ...decision, next, workers, ...(parked ? { worktree: parked } : {}) };
    }
    case 'ask': {
      if (deps.onAsk === 'reject') {
        throw new RaymondError('ERR_ASK_REJECTED', `asked a question (<ask>), and this run takes no answers (--on-ask=reject, the default without a terminal): the agent is paused; resume with --on-ask=pause (or on a terminal) to let it ask`, { file: where });
      }
      const now = Date.now();
      const ask: PendingAsk = { id: `ask_${agent.id}_${now}`, prompt: decision.prompt, created_at: new Date(now).toISOString(), next: r(decision.next) };
      if (decision.timeoutMs !== undefined) ask.timeout_at = new Date(now + decision.timeoutMs).toISOString();
      if (decision.timeoutNext !== undefined) ask.timeout_next = r(decision.timeoutNext);
      if (decision.files) ask.files = decision.files;
      return { ...decision, next: ask.next, timeoutNext: ask.timeout_next, ask };
    }
    case 'result': {
      if (agent.stack !== null || !agent.worktree || agent.worktree.removed !== undefined) return decision;
      return { ...decision, worktree: await deps.worktrees.finish(agent.worktree, agent.id) };
    }
  }
}
