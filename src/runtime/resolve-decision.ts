import { stat } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import type { StepInput } from '../../machines/agent.machine.js';
import { MAX_STACK_DEPTH, stackDepth } from '../../machines/frame-stack.js';
import { nameWorkers } from '../../machines/worker-names.js';
import {
  MAX_WORKFLOW_DEPTH,
  type AgentRecord,
  type Decision,
  type PendingAsk,
  type ResolvedDecision,
  type ResolvedDecisionData,
  type ResolvedForkSpawn,
  type ResolvedWorkflowTarget,
  type WorkflowTarget,
} from '../../machines/types.js';
import { RaymondError } from '../errors.js';
import { renderTemplate } from '../language/render.js';
import type { StepDependencies } from './step-context.js';
import { exhaustive } from '../../machines/exhaustive.js';

async function resolveCd(agent: AgentRecord, cd: string, where: string): Promise<string> {
  const dir = resolvePath(agent.cwd, cd);
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new RaymondError('ERR_CD', `cd="${cd}" is not a directory (resolved to ${dir})`, {
      file: where,
    });
  }
  return dir;
}

/** A cross-workflow tag's callee opened (relative to the agent's scope), and the state it starts at. */
async function openCallee(
  workflow: WorkflowTarget,
  agent: AgentRecord,
  deps: Pick<StepDependencies, 'scopes'>,
  tag: string,
  where: string,
): Promise<{ entry: string; workflow: ResolvedWorkflowTarget }> {
  const depth = agent.workflow_depth ?? 0;
  if (depth >= MAX_WORKFLOW_DEPTH) {
    throw new RaymondError(
      'ERR_WORKFLOW_DEPTH',
      `<${tag}>${workflow.spec}</${tag}> would nest workflows ${depth + 1} deep; at most ${MAX_WORKFLOW_DEPTH} are allowed (do two workflows call each other?)`,
      { file: where },
    );
  }
  const opened = await deps.scopes.open(workflow.spec, agent.scope, where);
  return {
    entry: opened.entry,
    workflow: { spec: workflow.spec, scope: opened.key, name: opened.name },
  };
}

/** The dependencies resolving a decision reads: the run's scopes, its id, its task folders and its `--on-ask`; nothing it could change. */
export type ResolveDependencies = Pick<
  StepDependencies,
  'scopes' | 'workflowId' | 'tasks' | 'onAsk'
>;

/** Marks a decision resolved: only this module does (machines/decision.ts). */
const resolved = (decision: ResolvedDecisionData): ResolvedDecision => decision as ResolvedDecision;

/**
 * Resolves every state name and directory in a decision before it is
 * applied, refuses a call past the deepest return stack, opens callees,
 * names forked workers, gives task folders and gives an ask its id and
 * times. It reads the workflow and the disk (`cd` must be a directory) and
 * changes nothing: the worktrees a decision asks for are planned, and an
 * agent's worktree settled, by the step after (step-worktree.ts).
 */
export async function resolveDecision(
  decision: Decision,
  input: StepInput,
  deps: ResolveDependencies,
  where: string,
): Promise<ResolvedDecision> {
  const agent = input.record;
  const scope = deps.scopes.of(agent.scope);
  const r = (name: string) => scope.resolve(name, where);
  // As `ray` does, a cross-workflow tag's input may name the caller's run, id and task folder.
  const rendered = (input: string | undefined) =>
    input === undefined
      ? undefined
      : renderTemplate(input, {
          workflow_id: deps.workflowId,
          agent_id: agent.id,
          task_folder: deps.tasks.of(agent),
        });
  switch (decision.kind) {
    case 'goto':
      return resolved({ ...decision, target: r(decision.target) });
    case 'reset': {
      const { workflow, ...rest } = decision;
      let out: Extract<ResolvedDecisionData, { kind: 'reset' }>;
      if (workflow) {
        // A <reset-workflow> leaves the depth behind: it may go anywhere, at any depth.
        const opened = await openCallee(
          workflow,
          { ...agent, workflow_depth: 0 },
          deps,
          'reset-workflow',
          where,
        );
        out = {
          ...rest,
          target: opened.entry,
          workflow: opened.workflow,
          input: rendered(decision.input),
        };
      } else {
        out = { ...rest, target: r(decision.target) };
      }
      if (decision.newTask) {
        // The agent's next own folder; an agent that shared its parent's (number 0) gets its first.
        const number = (agent.task_number ?? 1) + 1;
        out.taskFolder = { path: deps.tasks.path(agent.id, number), number };
      }
      // A worktree is the agent's directory (a tag has cd or worktree, never both): planned by the step.
      if (!decision.worktree && decision.cd !== undefined)
        out.cd = await resolveCd(agent, decision.cd, where);
      return resolved(out);
    }
    case 'call':
    case 'function': {
      if (stackDepth(agent.stack) >= MAX_STACK_DEPTH) {
        throw new RaymondError(
          'ERR_STACK_DEPTH',
          `<${decision.kind}> would make the return stack ${stackDepth(agent.stack) + 1} frames deep; at most ${MAX_STACK_DEPTH} are allowed (a recursion that never ends?)`,
          { file: where },
        );
      }
      const { workflow, ...rest } = decision;
      if (workflow) {
        const returnTo = r(decision.returnTo);
        const opened = await openCallee(workflow, agent, deps, `${decision.kind}-workflow`, where);
        const cd =
          decision.cd === undefined ? undefined : await resolveCd(agent, decision.cd, where);
        return resolved({
          ...rest,
          target: opened.entry,
          returnTo,
          workflow: opened.workflow,
          cd,
          input: rendered(decision.input),
        });
      }
      return resolved({ ...rest, target: r(decision.target), returnTo: r(decision.returnTo) });
    }
    case 'fork': {
      const next = r(decision.next);
      const callees = decision.workers.some((w) => w.workflow)
        ? await Promise.all(
            decision.workers.map((w) =>
              w.workflow
                ? openCallee(w.workflow, agent, deps, 'fork-workflow', where)
                : Promise.resolve(undefined),
            ),
          )
        : [];
      const targets = decision.workers.map((w, i) => callees[i]?.entry ?? r(w.target));
      // A workflow's worker is named after the workflow (main_other1), a state's after the state.
      const names = nameWorkers(
        agent.id,
        input.forkCount,
        decision.workers.map((w, i) => callees[i]?.workflow.name ?? targets[i]!),
      );
      const workers: ResolvedForkSpawn[] = [];
      for (const [i, w] of decision.workers.entries()) {
        const id = names[i]!;
        const taskFolder = w.inheritTask
          ? { path: deps.tasks.of(agent), number: 0 }
          : { path: deps.tasks.path(id, 1), number: 1 };
        // Built field by field, not spread from the parsed worker: a spread gave every one of a fork's workers a hidden class of its own (264 bytes each, measured at 10,000).
        const worker: ResolvedForkSpawn = {
          target: targets[i]!,
          attributes: w.attributes,
          id,
          taskFolder,
        };
        const callee = callees[i];
        // A callee's input is rendered here, in the caller's terms.
        if (w.input !== undefined) worker.input = callee ? rendered(w.input) : w.input;
        if (w.worktree !== undefined) worker.worktree = w.worktree;
        if (w.inheritTask !== undefined) worker.inheritTask = w.inheritTask;
        if (w.budget !== undefined) worker.budget = w.budget;
        if (w.cd !== undefined) worker.cd = w.worktree ? w.cd : await resolveCd(agent, w.cd, where);
        if (callee) worker.workflow = callee.workflow;
        workers.push(worker);
      }
      return resolved({ ...decision, next, workers });
    }
    case 'ask': {
      if (deps.onAsk === 'reject') {
        throw new RaymondError(
          'ERR_ASK_REJECTED',
          `asked a question (<ask>), and this run takes no answers (--on-ask=reject, the default without a terminal): the agent is paused; resume with --on-ask=pause (or on a terminal) to let it ask`,
          { file: where },
        );
      }
      const now = Date.now();
      const ask: PendingAsk = {
        id: `ask_${agent.id}_${now}`,
        prompt: decision.prompt,
        created_at: new Date(now).toISOString(),
        next: r(decision.next),
      };
      if (decision.timeoutMs !== undefined)
        ask.timeout_at = new Date(now + decision.timeoutMs).toISOString();
      if (decision.timeoutNext !== undefined) ask.timeout_next = r(decision.timeoutNext);
      if (decision.files) ask.files = decision.files;
      return resolved({ ...decision, next: ask.next, timeoutNext: ask.timeout_next, ask });
    }
    case 'result':
      return resolved(decision);
    default:
      return exhaustive(decision);
  }
}

/** The decision of a step the cost gate stopped at: its agent waits on the gate's ask (machines/gate.ts). */
export function gateDecision(ask: PendingAsk): ResolvedDecision {
  return resolved({ kind: 'ask', next: ask.next, prompt: ask.prompt, ask });
}
