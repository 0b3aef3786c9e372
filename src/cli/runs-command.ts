import { usd } from '../../machines/money.js';
import { widthText } from '../../machines/width-text.js';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import type { WorkflowState, WorktreeRef } from '../../machines/types.js';
import { formatError } from '../errors.js';
import { branchBudgetLines, stateBudgets } from './budget-status.js';
import { stateLabel } from './describe-event.js';
import { pendingAsks } from '../../machines/asks.js';
import {
  branchExists,
  checkedOut,
  removeFolder,
  summarizeWorktree,
  worktreesDir,
} from '../worktrees/git-worktrees.js';
import { acquireLock, lockHolder } from '../state/run-lock.js';
import { lockFilePath, readStateFile, stateFilePath } from '../state/state-file.js';
import { mergeStatus } from '../merge/merge-state.js';
import { runCostsOf } from '../history/run-steps.js';
import { projectRootOf } from '../task-folder-pattern.js';
import { costByStateText } from './stats-text.js';
import { interruptedBranches } from '../worktrees/step-start.js';

interface RunSummary {
  workflow_id: string;
  /** The run's --name label, if it has one. */
  name?: string;
  /** The state file's status, or `interrupted` for a run left `running` by a process that is gone. */
  status: string;
  live_agents: number;
  /** Asks waiting for an answer. */
  pending_asks: number;
  total_cost_usd: number;
  started_at: string;
  /** Pid of the process running it now, if any. */
  running_pid: number | null;
  /** Host of that process when it is another host (Raymond cannot see whether it still runs). */
  running_host?: string;
}

async function allRuns(stateDir: string, warn: (t: string) => void): Promise<WorkflowState[]> {
  const names = await readdir(stateDir).catch(() => [] as string[]);
  const runs: WorkflowState[] = [];
  for (const name of names.filter((n) => n.endsWith('.json')).sort()) {
    try {
      runs.push(await readStateFile(join(stateDir, name)));
    } catch (err) {
      warn(formatError(err));
    }
  }
  return runs.sort((a, b) => a.started_at.localeCompare(b.started_at));
}

function summarize(stateDir: string, state: WorkflowState): RunSummary {
  const holder = lockHolder(lockFilePath(stateDir, state.workflow_id));
  const runningPid = holder?.pid ?? null;
  return {
    workflow_id: state.workflow_id,
    ...(state.options.name ? { name: state.options.name } : {}),
    // A state file says running until its run ends; when no live process holds the lock, the run was
    // killed or stopped (Ctrl-C, SIGKILL, a crash) and waits for --resume.
    status: state.status === 'running' && runningPid === null ? 'interrupted' : state.status,
    live_agents: state.agents.filter((a) => a.status !== 'terminated').length,
    pending_asks: pendingAsks(state.agents).length,
    total_cost_usd: state.total_cost_usd,
    started_at: state.started_at,
    running_pid: runningPid,
    ...(holder?.foreign ? { running_host: holder.host } : {}),
  };
}

/** ` (running, pid N)`, ` (locked by pid N on host H)`, or nothing. */
/** How many of a joining agent's workers have not ended yet, of those it has not joined: `3 of 5 workers`. */
function joinsLeft(state: WorkflowState, agent: WorkflowState['agents'][number]): string {
  const mine = state.agents.filter((a) => a.parent === agent.id && a.joined === undefined);
  return `${mine.filter((a) => a.status === 'active' || a.status === 'paused').length} of ${mine.length} workers`;
}

function holderText(run: RunSummary): string {
  if (run.running_pid === null) return '';
  return run.running_host === undefined
    ? ` (running, pid ${run.running_pid})`
    : ` (locked by pid ${run.running_pid} on host ${run.running_host})`;
}

function line(run: RunSummary): string {
  const running = holderText(run);
  const asks = run.pending_asks > 0 ? `  ${run.pending_asks} asking` : '';
  return `${run.workflow_id}${run.name ? `  "${run.name}"` : ''}  ${run.status}${running}  ${run.live_agents} live${asks}  ${usd(run.total_cost_usd)}  ${run.started_at}`;
}

/** Whether `raymond --resume` can pick a run up. */
function resumable(run: RunSummary): boolean {
  return run.live_agents > 0 && run.running_pid === null && run.status !== 'completed';
}

/** `raymond --list` and `raymond --recover`: one line per run. */
export async function listRuns(
  stateDir: string,
  opts: { json: boolean; recover: boolean },
): Promise<string> {
  const warnings: string[] = [];
  const runs = (await allRuns(stateDir, (w) => warnings.push(w)))
    .map((s) => summarize(stateDir, s))
    .filter((r) => !opts.recover || resumable(r));
  for (const w of warnings) process.stderr.write(`warning: skipped ${w}\n`);
  if (opts.json) return JSON.stringify(runs);
  if (runs.length === 0) return opts.recover ? 'no run to resume' : `no runs in ${stateDir}`;
  return runs
    .map((r) => (opts.recover ? `${line(r)}\n  raymond --resume ${r.workflow_id}` : line(r)))
    .join('\n');
}

/** `raymond --status ID`: the run, each agent, and the results so far. */
export async function runStatus(stateDir: string, id: string, json: boolean): Promise<string> {
  const state = await readStateFile(stateFilePath(stateDir, id), id);
  const summary = summarize(stateDir, state);
  // `raymond merge`'s resolution turns are charged to the run, from merge's own state file (it never writes the run's).
  const merge = await mergeStatus(stateDir, id);
  const total = state.total_cost_usd + (merge?.cost_usd ?? 0);
  const costs = await runCostsOf(projectRootOf(stateFilePath(stateDir, id)), id, state.scope);
  const budgets = stateBudgets(state, total);
  if (json)
    return JSON.stringify({
      ...state,
      total_cost_usd: total,
      budgets,
      cost_by_state: costs?.byState ?? [],
      ...(merge ? { merge } : {}),
      status: summary.status,
      running_pid: summary.running_pid,
      ...(summary.running_host ? { running_host: summary.running_host } : {}),
    });
  const budget = state.options.budget_usd > 0 ? usd(state.options.budget_usd) : 'unlimited';
  const out = [
    `run ${state.workflow_id}${summary.name ? ` "${summary.name}"` : ''}: ${summary.status}${holderText(summary)}${summary.status === 'interrupted' ? ` (its process is gone; resume with raymond --resume ${state.workflow_id})` : ''}`,
    `scope: ${state.scope.path} (${state.scope.kind}, entry ${state.scope.entry})`,
    `cost: ${usd(total)} of ${budget}${budgets.run ? ` (${usd(budgets.run.left_usd)} left)` : ''}${merge ? ` (merge's resolution turns ${usd(merge.cost_usd)} of it)` : ''}; started ${state.started_at}, updated ${state.updated_at}`,
    ...branchBudgetLines(budgets),
  ];
  // From the run history: absent for a run made with --no-history (or by an older Raymond, until rebuilt).
  if (costs) out.push('cost by state:', ...costByStateText(costs).map((l) => `  ${l}`));
  if (merge) {
    const targets = merge.into
      .map((t) => `${t.branch} (${t.merged} merged, ${t.left_out} left out)`)
      .join(', ');
    out.push(
      `merge: ${merge.turns.length} resolution turn${merge.turns.length === 1 ? '' : 's'}, ${usd(merge.cost_usd)}; into ${targets}`,
    );
    for (const t of merge.turns)
      out.push(
        `  ${t.agent}  resolution ${t.attempt} into ${t.into}  session ${t.session}  ${usd(t.cost_usd)}`,
      );
  }
  if (state.error) out.push(`error: ${state.error}`);
  // As the run last set them: a narrowed account, or one parked until its usage limit resets.
  for (const [backend, w] of Object.entries(state.account_widths ?? {}))
    out.push(`account width: ${widthText({ backend, ...w })} (since ${w.at})`);
  out.push(`agents (${state.agents.length}):`);
  for (const a of state.agents) {
    const extra = a.error ? `  ${a.error}` : '';
    const status =
      a.ask && a.status === 'active'
        ? 'asking'
        : a.joining && a.status === 'active'
          ? `awaiting-child (waits for ${joinsLeft(state, a)})`
          : a.status;
    out.push(
      `  ${a.id}  ${status}  ${stateLabel(a.state, a.scope)}  depth ${a.stack.length}  ${a.cwd}${extra}`,
    );
  }
  const asks = pendingAsks(state.agents);
  if (asks.length > 0) {
    out.push(
      `asks (${asks.length}), answer with --resume ${state.workflow_id} --input TEXT (the oldest) or --answer ASK_ID=TEXT:`,
    );
    for (const a of asks)
      out.push(
        `  ${a.id}  ${a.agent_id}  asked ${a.created_at}${a.timeout_at ? `, until ${a.timeout_at}` : ''}: ${a.prompt.trim().split('\n')[0]!.slice(0, 200)}`,
      );
  }
  const results = Object.entries(state.results);
  out.push(`results (${results.length}):`);
  for (const [agent, payload] of results)
    out.push(`  ${agent}: ${payload.trim().split('\n')[0]!.slice(0, 200)}`);
  return out.join('\n');
}

/**
 * `raymond worktrees ID [--prune]`: every branch of a run's agents, its
 * commits and where it is checked out now, live from git. `--prune` removes
 * the run's worktree folders (its pool and any agent's own), keeping the
 * branches, so committed work stays reachable.
 */
export async function runWorktrees(
  stateDir: string,
  id: string,
  opts: { prune: boolean; json: boolean },
): Promise<string> {
  const read = async () => {
    const state = await readStateFile(stateFilePath(stateDir, id), id);
    const refs = state.agents
      .filter((a) => a.worktree)
      .map((a) => ({ agent: a.id, w: a.worktree! }));
    return { refs, repos: [...new Set(refs.map((r) => r.w.repo))] };
  };
  let { refs, repos } = await read();
  if (opts.prune) {
    // The run's own lock, held while pruning: a live run's agents work in these folders, and no resume starts meanwhile.
    const release = acquireLock(lockFilePath(stateDir, id), id);
    try {
      ({ refs, repos } = await read());
      await pruneRun(
        repos,
        id,
        refs.map((r) => r.w),
      );
    } finally {
      release();
    }
  }
  const checkouts = new Map<string, Map<string, string>>();
  for (const repo of repos)
    checkouts.set(repo, existsSync(repo) ? await checkedOut(repo) : new Map<string, string>());
  const rows = [];
  for (const { agent, w } of refs) {
    const removed = w.removed === true;
    const exists = !removed && (await branchExists(w.repo, w.branch));
    const at = checkouts.get(w.repo)?.get(w.branch) ?? null;
    const live = exists
      ? await summarizeWorktree(w, at ?? undefined)
      : { commits: 0, diffstat: '', dirty: false };
    rows.push({
      agent,
      branch: w.branch,
      exists,
      checked_out_at: at,
      removed,
      commits: live.commits,
      diffstat: live.diffstat,
      dirty: live.dirty,
      saved: w.saved ?? null,
      pushed: w.pushed ?? null,
      interrupted: existsSync(w.repo) ? await interruptedBranches(w) : [],
    });
  }
  if (opts.json) return JSON.stringify(rows);
  if (rows.length === 0) return `run ${id} has no worktrees`;
  return rows
    .map((r) => {
      if (r.removed) return `${r.agent}  ${r.branch}  deleted (no changes)`;
      // A queued run's worker pushed it: it is on the remote until fetched here.
      if (!r.exists && r.pushed)
        return `${r.agent}  ${r.branch}  on ${r.pushed} (pushed by a worker; git fetch ${r.pushed} ${r.branch}:${r.branch})`;
      if (!r.exists) return `${r.agent}  ${r.branch}  not created yet`;
      const where = r.checked_out_at ? `checked out at ${r.checked_out_at}` : 'not checked out';
      const kept = r.interrupted.map(
        (b) => `\n${r.agent}  ${b}  the work of a step a stopped run left half done`,
      );
      return `${r.agent}  ${r.branch}  ${r.commits} commit${r.commits === 1 ? '' : 's'}${r.diffstat ? `, ${r.diffstat}` : ''}${r.dirty ? ', uncommitted changes' : ''}  ${where}${kept.join('')}`;
    })
    .join('\n');
}

/** Removes every folder of the run: its pool folders and the agents' own, wherever the state file says they are. */
async function pruneRun(repos: string[], id: string, refs: WorktreeRef[]): Promise<void> {
  const paths = new Map<string, string>();
  for (const w of refs) if (w.path !== undefined && !w.removed) paths.set(w.path, w.repo);
  for (const repo of repos) {
    const dir = worktreesDir(repo, id);
    for (const name of await readdir(dir).catch(() => [] as string[]))
      paths.set(join(dir, name), repo);
  }
  for (const [path, repo] of paths) if (existsSync(repo)) await removeFolder(repo, path);
}
