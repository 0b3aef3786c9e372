import { rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { WorkflowState } from '../../machines/types.js';
import { RaymondError, errorMessage } from '../errors.js';
import { acquireLock } from '../state/run-lock.js';
import { readStateFile, removeLeftoverTemps, stateFilePath } from '../state/state-file.js';
import { checkedOut } from '../worktrees/git-worktrees.js';
import { git } from '../worktrees/git.js';
import { agentBackends } from './agent-backends.js';
import { runCheck } from './check-command.js';
import {
  commitEnv,
  deleteBranchIfFree,
  detachedFolder,
  mergeInto,
  mergesDir,
  moveBranch,
  removeMergeFolder,
  resolveRev,
} from './merge-git.js';
import { buildReport, type MergeReport } from './merge-report.js';
import {
  emptyMergeState,
  mergeLockPath,
  mergeStatePath,
  readMergeState,
  writeMergeState,
  type MergeState,
  type MergeTarget,
} from './merge-state.js';
import { survey, type Candidate } from './merge-survey.js';
import { resolveBranch, type Resolver } from './resolve-branch.js';
import { troubleLine, type Trouble } from './resolve-prompt.js';
import type { MergeRequest } from './merge-request.js';

/** The repository of the run's worktree agents; refused when there is none, or more than one. */
function repoOf(run: WorkflowState): { repo: string; base: string } {
  const refs = run.agents.filter((a) => a.worktree).map((a) => a.worktree!);
  if (refs.length === 0)
    throw new RaymondError(
      'ERR_WORKTREE',
      `run ${run.workflow_id} has no agent with a worktree: no branch to merge`,
    );
  const repos = [...new Set(refs.map((w) => w.repo))];
  if (repos.length > 1)
    throw new RaymondError(
      'ERR_WORKTREE',
      `run ${run.workflow_id}'s branches are in ${repos.length} repositories (${repos.join(', ')}); raymond merge takes the branches of one`,
    );
  return { repo: repos[0]!, base: refs[0]!.base };
}

/**
 * Why BRANCH cannot be merged into, by its name alone: a full ref name
 * (`refs/heads/main` would make the branch `refs/heads/refs/heads/main`, which
 * git then calls ambiguous), or a branch of the run's own agents (each is
 * `raymond/RUN/AGENT`, step-worktree.ts, every agent id starting with `main`,
 * and its fix branch `...-fix`): merging into one would move an agent's work.
 */
function intoProblem(into: string, workflowId: string): string | undefined {
  if (into.startsWith('refs/'))
    return `--into ${JSON.stringify(into)} is a full ref name: give the branch's name (${into.replace(/^refs\/heads\//, '')})`;
  if (into.startsWith(`raymond/${workflowId}/main`))
    return `--into ${into} is in the run's own agent branches (raymond/${workflowId}/main...): merging into it would move an agent's work; give another branch, such as raymond/${workflowId}/merged`;
  return undefined;
}

/** BRANCH's tip, made from the run's base when it does not exist; refused when it is checked out anywhere. */
async function prepareInto(
  req: MergeRequest,
  target: MergeTarget,
): Promise<{ sha: string; created: boolean }> {
  const name = await git(target.repo, ['check-ref-format', '--branch', req.into], target.repo);
  if (!name.ok)
    throw new RaymondError(
      'ERR_USAGE',
      `--into ${JSON.stringify(req.into)} is not a valid branch name`,
    );
  const at = (await checkedOut(target.repo)).get(req.into);
  if (at !== undefined)
    throw new RaymondError(
      'ERR_WORKTREE',
      `${req.into} is checked out at ${at}; raymond merge never touches a checkout: switch that folder to another branch, or merge into another --into`,
      { file: target.repo },
    );
  const sha = await resolveRev(target.repo, `refs/heads/${req.into}`);
  if (sha !== undefined) return { sha, created: false };
  await moveBranch(
    target.repo,
    req.into,
    target.base,
    undefined,
    `create ${req.into} at the run's base`,
  );
  return { sha: target.base, created: true };
}

/**
 * `raymond merge`: takes a run's agent branches into BRANCH one at a time,
 * in a worktree of merge's own, keeping a merge only when it is clean and
 * the check passes (BRANCH moves by compare-and-swap, only to such a
 * commit); a conflict or a failed check goes back to the agent's session
 * (resolve-branch.ts). Everything it does is in its own state file, written
 * after each change, so it can be killed at any point and run again.
 */
export async function mergeRun(req: MergeRequest): Promise<MergeReport> {
  const run = await readStateFile(stateFilePath(req.stateDir, req.workflowId), req.workflowId);
  const { repo, base } = repoOf(run);
  const problem = intoProblem(req.into, req.workflowId);
  if (problem !== undefined) throw new RaymondError('ERR_USAGE', problem);
  const release = acquireLock(mergeLockPath(req.stateDir, req.workflowId), req.workflowId);
  const backends = agentBackends(run);
  try {
    // A merge killed mid-write left its temporary file (`<id>.merge.<digits>`); holding the lock, none is a live writer's.
    await removeLeftoverTemps(mergeStatePath(req.stateDir, req.workflowId));
    const state: MergeState =
      (await readMergeState(req.stateDir, req.workflowId)) ?? emptyMergeState(req.workflowId);
    const target: MergeTarget = state.targets[req.into] ?? {
      into: req.into,
      repo,
      base,
      order: [],
      branches: {},
    };
    state.targets[req.into] = target;
    const into = await prepareInto(req, target);
    const save = () => writeMergeState(req.stateDir, state);
    const candidates = await survey(run, target, into.sha);
    await save();
    const env = await commitEnv(repo);
    const folder = join(mergesDir(repo, req.workflowId), 'merge');
    let intoSha = into.sha;
    const resolver: Resolver = {
      req,
      run,
      state,
      target,
      env,
      backends,
      save,
      budgetUsd: req.budgetUsd ?? run.options.budget_usd,
    };
    const todo = candidates.filter(
      (c) => c.entry.status === 'pending' || c.entry.status === 'resolving',
    );
    for (const [i, c] of todo.entries()) {
      if (req.signal.aborted) break;
      req.say(`merging ${c.entry.branch} (${i + 1}/${todo.length})`);
      intoSha = await mergeOne(c, intoSha, { req, repo, folder, env, save, resolver });
    }
    await removeMergeFolder(repo, folder);
    await rmdir(mergesDir(repo, req.workflowId)).catch(() => undefined);
    const deleted =
      req.deleteMerged && !req.signal.aborted ? await deleteMerged(repo, candidates) : [];
    return buildReport({
      state,
      target,
      intoSha,
      created: into.created,
      deleted,
      interrupted: req.signal.aborted,
    });
  } finally {
    await backends.close().catch(() => undefined);
    release();
  }
}

interface MergeContext {
  req: MergeRequest;
  repo: string;
  folder: string;
  env: Record<string, string>;
  save: () => Promise<void>;
  resolver: Resolver;
}

/**
 * Merges one branch: `git merge --no-ff` of its tip (or of its last fix) in
 * the merge folder, at BRANCH's tip; then the check. A clean merge that
 * passes moves BRANCH; anything else is reset and goes to its agent's
 * session while attempts are left, and is left out after. `at` is BRANCH's
 * tip; returns its tip after.
 */
async function mergeOne(c: Candidate, at: string, x: MergeContext): Promise<string> {
  const e = c.entry;
  for (;;) {
    const tip =
      (e.fix_tip !== undefined ? await resolveRev(x.repo, e.fix_tip) : undefined) ?? c.tip!;
    await detachedFolder(x.repo, x.folder, at);
    const message = `raymond merge: ${e.branch} into ${x.req.into}${e.fix_tip === tip ? ' (with its fix)' : ''}\n\nAgent ${e.agent} of run ${x.req.workflowId}.`;
    const merged = await mergeInto(x.folder, tip, message, x.env);
    let trouble: Trouble | undefined;
    if (!merged.ok) trouble = { kind: 'conflict', files: merged.conflicts, status: merged.status };
    else if (x.req.check !== undefined) {
      x.req.say(`  checking: ${x.req.check}`);
      const env = {
        RAYMOND_WORKFLOW_ID: x.req.workflowId,
        RAYMOND_AGENT_ID: e.agent,
        RAYMOND_BRANCH: e.branch,
        RAYMOND_MERGE_INTO: x.req.into,
      };
      const check = await runCheck(
        x.req.check,
        x.folder,
        x.resolver.run.options.timeout_seconds * 1000,
        env,
        x.req.signal,
      );
      if (!check.passed)
        trouble = { kind: 'check', command: x.req.check, how: check.how, output: check.output };
    }
    if (x.req.signal.aborted) return at;
    if (merged.ok && trouble === undefined) {
      await moveBranch(x.repo, x.req.into, merged.sha, at, `merge ${e.branch}`);
      Object.assign(e, { status: 'merged', sha: merged.sha, tip });
      delete e.reason;
      await x.save();
      x.req.say(`  merged as ${merged.sha.slice(0, 10)}`);
      return merged.sha;
    }
    // Nothing of a merge that is not kept stays in the folder.
    await detachedFolder(x.repo, x.folder, at);
    const line = troubleLine(trouble!, x.req.into);
    x.req.say(`  not merged: ${line}`);
    const resolved = await resolveBranch(c, trouble!, at, x.resolver).catch((err: unknown) => ({
      leftOut: `could not resolve it: ${errorMessage(err)}`,
    }));
    // Ctrl-C during the turn: the branch stays where it was, for the next merge to go on with.
    if (x.req.signal.aborted) return at;
    if ('leftOut' in resolved) {
      Object.assign(e, { status: 'left_out', reason: `${line}; ${resolved.leftOut}` });
      await x.save();
      x.req.say(`  left out: ${e.reason}`);
      return at;
    }
  }
}

/** Deletes the merged agents' branches and their fix branches (not checked out anywhere). */
async function deleteMerged(repo: string, candidates: Candidate[]): Promise<string[]> {
  const deleted: string[] = [];
  const busy = await checkedOut(repo);
  for (const c of candidates) {
    if (c.entry.status !== 'merged') continue;
    for (const b of [c.entry.branch, c.entry.fix_branch]) {
      if (
        b === undefined ||
        busy.has(b) ||
        (await resolveRev(repo, `refs/heads/${b}`)) === undefined
      )
        continue;
      if (await deleteBranchIfFree(repo, b)) deleted.push(b);
    }
  }
  return deleted;
}
