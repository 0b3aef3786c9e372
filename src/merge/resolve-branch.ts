import { usd } from '../../machines/money.js';
import { join } from 'node:path';
import type { WorkflowState } from '../../machines/types.js';
import { readStateFile, stateFilePath } from '../state/state-file.js';
import type { AgentBackends } from './agent-backends.js';
import { finishFix, prepareFixFolder } from './fix-folder.js';
import { commitsBetween, mergesDir, removeMergeFolder } from './merge-git.js';
import type { MergeRequest } from './merge-request.js';
import type { MergeState, MergeTarget } from './merge-state.js';
import type { Candidate } from './merge-survey.js';
import { resolvePrompt, type Trouble } from './resolve-prompt.js';
import { resolveTurn } from './resolve-turn.js';

/** What a resolution needs from the merge around it. */
export interface Resolver {
  req: MergeRequest;
  run: WorkflowState;
  state: MergeState;
  target: MergeTarget;
  env: Record<string, string>;
  backends: AgentBackends;
  save: () => Promise<void>;
  /** 0: unlimited. */
  budgetUsd: number;
}

/** Merge it again (with its fix, or after a turn that failed), or why the branch is left out. */
export type Resolution = { again: true } | { leftOut: string };

/** The run's total now (a live run goes on spending) plus what merge spent: what the budget is held against. */
async function spent(r: Resolver): Promise<{ run: number; merge: number }> {
  const now = await readStateFile(
    stateFilePath(r.req.stateDir, r.req.workflowId),
    r.req.workflowId,
  ).catch(() => r.run);
  return { run: now.total_cost_usd, merge: r.state.total_cost_usd };
}

/**
 * Sends a branch that conflicts or fails the check back to the agent that
 * made it, when it has a session and attempts and budget are left: one
 * resolution turn in a fix folder (fix-folder.ts), its cost recorded in
 * merge's state (never in the run's), its commits kept as the entry's fix.
 */
export async function resolveBranch(
  c: Candidate,
  trouble: Trouble,
  intoSha: string,
  r: Resolver,
): Promise<Resolution> {
  const e = c.entry;
  const agent = c.agent;
  if (!agent.session)
    return {
      leftOut: 'its agent has no Claude Code or pi session to resolve it (a script worker)',
    };
  if (e.attempts >= r.req.retries)
    return {
      leftOut:
        r.req.retries === 0
          ? 'not sent back to its agent (--retries 0)'
          : `still so after ${e.attempts} resolution turn${e.attempts === 1 ? '' : 's'} of its agent (--retries ${r.req.retries})`,
    };
  if (r.budgetUsd > 0) {
    const s = await spent(r);
    if (s.run + s.merge >= r.budgetUsd)
      return {
        leftOut: `the budget of ${usd(r.budgetUsd)} is spent (run ${usd(s.run)} + merge ${usd(s.merge)}), so no resolution turn`,
      };
  }
  e.attempts += 1;
  e.status = 'resolving';
  e.fix_branch = `${e.branch}-fix`;
  await r.save();
  const repo = r.target.repo;
  const folder = join(mergesDir(repo, r.req.workflowId), agent.id);
  const from = e.fix_tip ?? c.tip!;
  const fix = await prepareFixFolder(
    repo,
    folder,
    e.fix_branch,
    from,
    intoSha,
    r.target.into,
    r.env,
  );
  const last = r.state.turns
    .filter(
      (t) => t.agent === agent.id && t.into === r.target.into && t.session_total !== undefined,
    )
    .at(-1);
  const prompt = resolvePrompt({
    workflowId: r.req.workflowId,
    into: r.target.into,
    intoSha,
    branch: e.branch,
    fixBranch: e.fix_branch,
    folder,
    trouble,
    fix,
    check: r.req.check,
  });
  r.req.say(
    `  sending it back to ${agent.id}'s session (resolution ${e.attempts} of ${r.req.retries})`,
  );
  const turn = await resolveTurn({
    workflowId: r.req.workflowId,
    agent,
    backend: await r.backends.of(agent),
    from: last?.session ?? agent.session,
    fromCwd: last ? folder : agent.cwd,
    costBase: last ? last.session_total : r.run.session_costs[agent.session],
    folder,
    prompt,
    skipPermissions: r.run.options.dangerously_skip_permissions,
    model: r.run.options.model ?? undefined,
    effort: r.run.options.effort ?? undefined,
    machineSettings: r.req.machineSettings,
    timeoutMs: r.run.options.timeout_seconds * 1000,
    signal: r.req.signal,
    // What the agent says goes to stderr as it comes: a merge run from a script state stays visibly alive.
    emit: (ev) => {
      if (ev.type === 'warning') r.req.say(`  warning: ${ev.text}`);
      else if (ev.type === 'print') r.req.say(`  [${agent.id}] ${ev.text}`);
    },
  });
  r.state.turns.push({
    agent: agent.id,
    into: r.target.into,
    attempt: e.attempts,
    from: last?.session ?? agent.session,
    session: turn.session,
    cost_usd: turn.costUsd,
    ...(turn.sessionTotal !== undefined ? { session_total: turn.sessionTotal } : {}),
    at: new Date().toISOString(),
  });
  r.state.total_cost_usd += turn.costUsd;
  e.cost_usd += turn.costUsd;
  await r.save();
  r.req.say(
    `  resolution turn cost ${usd(turn.costUsd)}${turn.error ? `; it failed: ${turn.error}` : ''}`,
  );
  if (turn.error !== undefined) {
    await removeMergeFolder(repo, folder);
    return e.attempts >= r.req.retries
      ? { leftOut: `its resolution turn failed: ${turn.error}` }
      : { again: true };
  }
  const done = await finishFix(folder, intoSha, agent.id, r.env);
  if (!done.ok) {
    await removeMergeFolder(repo, folder);
    return e.attempts >= r.req.retries ? { leftOut: done.reason } : { again: true };
  }
  e.fix_commits = [
    ...(e.fix_commits ?? []),
    ...(await commitsBetween(folder, fix.head, done.head)),
  ];
  e.fix_tip = done.head;
  await r.save();
  await removeMergeFolder(repo, folder);
  return { again: true };
}
