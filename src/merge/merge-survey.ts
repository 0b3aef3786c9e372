import type { StoredAgent, WorkflowState, WorktreeRef } from '../../machines/types.js';
import { git } from '../worktrees/git.js';
import { changedFiles, isAncestor, resolveRev } from './merge-git.js';
import type { MergeBranch, MergeTarget } from './merge-state.js';
import { mergeOrder } from './merge-order.js';

/** A worktree agent's branch as git has it now. */
export interface Candidate {
  agent: StoredAgent;
  entry: MergeBranch;
  /** The branch's tip now; undefined when it is not in the repository. */
  tip?: string;
}

/** Why an agent's branch cannot be merged now: its agent failed or has not finished (it cannot have been merged either). */
function blocked(a: StoredAgent): string | undefined {
  if (a.status === 'failed') return `its agent failed${a.error ? `: ${a.error}` : ''}`;
  if (a.status !== 'terminated') return `its agent has not finished (${a.status})`;
  return undefined;
}

/** Whether the branch has no commits over its base: deleted as such by the run, or still at its base. */
async function empty(w: WorktreeRef, tip: string | undefined, repo: string): Promise<boolean> {
  if (w.removed) return true;
  if (tip === undefined) return false;
  const count = await git(repo, ['rev-list', '--count', `${w.base}..${tip}`], repo);
  return count.ok && count.stdout === '0';
}

/** Why a finished agent's branch, not in BRANCH, is not here to merge. */
function missing(w: WorktreeRef): string {
  return w.pushed
    ? `the branch is on ${w.pushed}, not here: git fetch ${w.pushed} ${w.branch}:${w.branch}`
    : 'the branch is gone';
}

/** The commit of `into` that merged `tip`: a merge whose second parent it is. */
async function mergeCommitOf(repo: string, into: string, tip: string): Promise<string | undefined> {
  const log = await git(repo, ['log', '--merges', '--format=%H %P', into], repo);
  return log.ok
    ? log.stdout
        .split('\n')
        .find((l) => l.split(' ')[2] === tip)
        ?.split(' ')[0]
    : undefined;
}

/**
 * Brings each worktree agent's entry up to date with git, the truth: a branch
 * (or its last fix) already in BRANCH is merged, whatever the merge state
 * says, and one the state says is merged but BRANCH does not hold is to be
 * merged again. Agents not finished, failed, or without commits are marked
 * so, afresh each time (a live run moves on). Then orders the branches to
 * merge, keeping the order planned by an earlier merge and appending new ones.
 */
export async function survey(
  run: WorkflowState,
  target: MergeTarget,
  intoSha: string,
): Promise<Candidate[]> {
  const repo = target.repo;
  const out: Candidate[] = [];
  for (const a of run.agents.filter((x) => x.worktree?.repo === repo)) {
    const w = a.worktree!;
    const entry: MergeBranch = target.branches[a.id] ?? {
      agent: a.id,
      branch: w.branch,
      status: 'pending',
      attempts: 0,
      cost_usd: 0,
    };
    target.branches[a.id] = entry;
    const tip = await resolveRev(repo, `refs/heads/${w.branch}`);
    const set = (status: 'left_out' | 'nothing', reason: string) => {
      Object.assign(entry, { status, reason });
      delete entry.sha;
      delete entry.tip;
    };
    const notYet = blocked(a);
    if (notYet !== undefined) set('left_out', notYet);
    else if (await empty(w, tip, repo))
      set('nothing', w.removed ? 'no commits (its branch was deleted)' : 'no commits');
    else {
      const held = [tip, entry.fix_tip, entry.tip].filter((t): t is string => t !== undefined);
      let inside: string | undefined;
      for (const t of held) if (await isAncestor(repo, t, intoSha)) inside = t;
      if (inside !== undefined) {
        if (entry.status !== 'merged')
          Object.assign(entry, {
            status: 'merged',
            tip: inside,
            sha: (await mergeCommitOf(repo, target.into, inside)) ?? intoSha,
          });
        delete entry.reason;
      } else if (tip === undefined) set('left_out', missing(w));
      else if (entry.status !== 'pending' && entry.status !== 'resolving') {
        // Merged once but not in BRANCH now (reset or recreated), or left out last time: tried again.
        entry.status = 'pending';
        delete entry.sha;
        delete entry.tip;
        delete entry.reason;
      }
    }
    out.push({ agent: a, entry, tip });
  }
  const known = new Set(target.order);
  const fresh = [];
  for (const c of out) {
    if (known.has(c.agent.id) || c.tip === undefined) continue;
    fresh.push({
      agent: c.agent.id,
      files: await changedFiles(repo, c.agent.worktree!.base, c.tip),
    });
  }
  target.order.push(...mergeOrder(fresh));
  const rank = new Map(target.order.map((id, i) => [id, i]));
  return out.sort(
    (x, y) => (rank.get(x.agent.id) ?? Infinity) - (rank.get(y.agent.id) ?? Infinity),
  );
}
