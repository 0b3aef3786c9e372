import { usd } from '../../machines/money.js';
import type { FixCommit, MergeState, MergeTarget } from './merge-state.js';

/** A branch merged into BRANCH, resolved by its agent or not. */
export interface MergedBranch {
  agent: string;
  branch: string;
  /** The commit of BRANCH that merged it. */
  sha: string | null;
  /** Whether a resolution turn's fix went in with it. */
  resolved: boolean;
  attempts: number;
  fix_branch: string | null;
  /** The commits the resolution made: they came from the fix, not from the agent's run. */
  fix_commits: FixCommit[];
  cost_usd: number;
}

/** What `raymond merge` did, as `--json` prints it and the text report says it. */
export interface MergeReport {
  workflow_id: string;
  into: string;
  repo: string;
  /** BRANCH's tip at the end. */
  sha: string;
  /** BRANCH was made by this merge, from the run's base. */
  created: boolean;
  base: string;
  merged: MergedBranch[];
  left_out: Array<{
    agent: string;
    branch: string;
    reason: string;
    attempts: number;
    cost_usd: number;
  }>;
  /** Branches without commits (or deleted as such by the run). */
  nothing_to_merge: Array<{ agent: string; branch: string; reason: string }>;
  /** What resolution turns into this BRANCH cost, and what every merge of the run cost. */
  cost_usd: number;
  total_cost_usd: number;
  deleted: string[];
  /** Ctrl-C stopped it; running it again goes on. */
  interrupted: boolean;
}

/** The report of a merge from its state. */
export function buildReport(o: {
  state: MergeState;
  target: MergeTarget;
  intoSha: string;
  created: boolean;
  deleted: string[];
  interrupted: boolean;
}): MergeReport {
  const rank = new Map(o.target.order.map((id, i) => [id, i]));
  const entries = Object.values(o.target.branches).sort(
    (a, b) => (rank.get(a.agent) ?? Infinity) - (rank.get(b.agent) ?? Infinity),
  );
  return {
    workflow_id: o.state.workflow_id,
    into: o.target.into,
    repo: o.target.repo,
    sha: o.intoSha,
    created: o.created,
    base: o.target.base,
    merged: entries
      .filter((e) => e.status === 'merged')
      .map((e) => ({
        agent: e.agent,
        branch: e.branch,
        sha: e.sha ?? null,
        resolved: (e.fix_commits?.length ?? 0) > 0,
        attempts: e.attempts,
        fix_branch: e.fix_branch ?? null,
        fix_commits: e.fix_commits ?? [],
        cost_usd: e.cost_usd,
      })),
    // A branch still pending or resolving here was cut short by Ctrl-C: it is not in BRANCH either.
    left_out: entries
      .filter((e) => e.status === 'left_out' || e.status === 'pending' || e.status === 'resolving')
      .map((e) => ({
        agent: e.agent,
        branch: e.branch,
        reason: e.reason ?? 'not merged yet (interrupted)',
        attempts: e.attempts,
        cost_usd: e.cost_usd,
      })),
    nothing_to_merge: entries
      .filter((e) => e.status === 'nothing')
      .map((e) => ({ agent: e.agent, branch: e.branch, reason: e.reason ?? 'no commits' })),
    cost_usd: entries.reduce((sum, e) => sum + e.cost_usd, 0),
    total_cost_usd: o.state.total_cost_usd,
    deleted: o.deleted,
    interrupted: o.interrupted,
  };
}

const short = (sha: string | null) => (sha ? sha.slice(0, 10) : '?');

/** The report as text: a headline, then what was merged (and resolved), left out, and had nothing to merge. */
export function reportText(r: MergeReport): string {
  const made = r.created ? ` (created at the run's base ${short(r.base)})` : '';
  const nothing =
    r.nothing_to_merge.length > 0 ? `, ${r.nothing_to_merge.length} with nothing to merge` : '';
  const out = [
    `${r.into}${made} is at ${short(r.sha)}: ${r.merged.length} merged, ${r.left_out.length} left out${nothing}; resolution turns cost ${usd(r.cost_usd)}${r.interrupted ? ' (interrupted: run it again to go on)' : ''}`,
  ];
  if (r.merged.length > 0) out.push('merged:');
  for (const m of r.merged) {
    const fix = m.resolved
      ? `; resolved by its agent's session in ${m.attempts} turn${m.attempts === 1 ? '' : 's'} (${usd(m.cost_usd)}), fix commits ${m.fix_commits.map((c) => `${short(c.sha)} "${c.subject}"`).join(', ')}`
      : '';
    out.push(`  ${m.agent}  ${m.branch}  as ${short(m.sha)}${fix}`);
  }
  if (r.left_out.length > 0) out.push('left out:');
  for (const l of r.left_out)
    out.push(
      `  ${l.agent}  ${l.branch}  ${l.reason}${l.cost_usd > 0 ? ` (resolution turns cost ${usd(l.cost_usd)})` : ''}`,
    );
  if (r.nothing_to_merge.length > 0) out.push('nothing to merge:');
  for (const n of r.nothing_to_merge) out.push(`  ${n.agent}  ${n.branch}  ${n.reason}`);
  if (r.deleted.length > 0) out.push(`deleted: ${r.deleted.join(' ')}`);
  return out.join('\n');
}
