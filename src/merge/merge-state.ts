import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { RaymondError } from '../errors.js';
import { checkWorkflowId } from '../state/state-file.js';

/**
 * Where one agent's branch stands in a merge: still to merge, merged (at
 * `sha`, the commit of BRANCH that took it), being resolved by its agent's
 * session, left out (with `reason`), or with nothing to merge (no commits).
 */
export type BranchStatus = 'pending' | 'merged' | 'resolving' | 'left_out' | 'nothing';

/** One commit a resolution turn added. */
export interface FixCommit {
  sha: string;
  subject: string;
}

/** One agent's branch as `raymond merge` tracks it for one BRANCH. */
export interface MergeBranch {
  agent: string;
  branch: string;
  status: BranchStatus;
  /** The commit of BRANCH that merged it (status `merged`). */
  sha?: string;
  /** The tip that went in (the branch's, or its fix's): still known to be merged once `--delete-merged` deleted the branch. */
  tip?: string;
  /** Why it was left out, or why there is nothing to merge. */
  reason?: string;
  /** Resolution turns begun for it so far (each one counts against --retries). */
  attempts: number;
  /** The branch a resolution made (`raymond/<run>/<agent>-fix`), and its tip after the last turn. */
  fix_branch?: string;
  fix_tip?: string;
  /** The commits the resolution turns made, oldest first. */
  fix_commits?: FixCommit[];
  /** What its resolution turns cost. */
  cost_usd: number;
}

/** Everything merged into one BRANCH. */
export interface MergeTarget {
  into: string;
  repo: string;
  /** The commit BRANCH was created from (the first worktree agent's base), when merge created it. */
  base: string;
  /** The order the branches are merged in: agent ids (see merge-order.ts). */
  order: string[];
  branches: Record<string, MergeBranch>;
}

/** One resolution turn: a forked session of the agent that made the branch. */
export interface MergeTurn {
  agent: string;
  into: string;
  attempt: number;
  /** The session forked from, and the new one. */
  from: string;
  session: string;
  cost_usd: number;
  /** The session's total as its backend reported it, for the next turn's cost. */
  session_total?: number;
  at: string;
}

/**
 * `raymond merge`'s own durable state for one run, beside the run's state
 * file and never in it: the run's supervisor is that file's only writer.
 */
export interface MergeState {
  version: 1;
  workflow_id: string;
  updated_at: string;
  /** What every resolution turn cost together; `--status` adds it to the run's total. */
  total_cost_usd: number;
  turns: MergeTurn[];
  targets: Record<string, MergeTarget>;
}

/**
 * `<state-dir>/<id>.merge`: not `.json`, since `--list` (and whatever else
 * scans the folder for runs) reads every `*.json` there as a run.
 */
export function mergeStatePath(stateDir: string, workflowId: string): string {
  checkWorkflowId(workflowId);
  return join(stateDir, `${workflowId}.merge`);
}

/** The lock a merge holds while it runs: one merge of a run at a time. */
export function mergeLockPath(stateDir: string, workflowId: string): string {
  checkWorkflowId(workflowId);
  return join(stateDir, `${workflowId}.merge.lock`);
}

/** A run's merge state, or undefined when it was never merged. A damaged file is one error naming it. */
export async function readMergeState(
  stateDir: string,
  workflowId: string,
): Promise<MergeState | undefined> {
  const path = mergeStatePath(stateDir, workflowId);
  const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw new RaymondError(
      'ERR_STATE_FILE',
      `cannot read the merge state: ${err.code ?? err.message}`,
      { file: path },
    );
  });
  if (text === undefined) return undefined;
  let data: Partial<MergeState> | null;
  try {
    data = JSON.parse(text) as Partial<MergeState> | null;
  } catch {
    throw new RaymondError('ERR_STATE_FILE', 'the merge state is not valid JSON', { file: path });
  }
  if (
    !data ||
    data.version !== 1 ||
    data.workflow_id !== workflowId ||
    typeof data.total_cost_usd !== 'number' ||
    !Array.isArray(data.turns) ||
    typeof data.targets !== 'object' ||
    data.targets === null
  ) {
    throw new RaymondError(
      'ERR_STATE_FILE',
      'not a merge state of this run (damaged, or from another version)',
      { file: path },
    );
  }
  return data as MergeState;
}

/** A fresh merge state for a run. */
export function emptyMergeState(workflowId: string): MergeState {
  return {
    version: 1,
    workflow_id: workflowId,
    updated_at: new Date().toISOString(),
    total_cost_usd: 0,
    turns: [],
    targets: {},
  };
}

/** Writes the merge state whole (write-file-atomic: a kill leaves the old file or the new one, never half). */
export async function writeMergeState(stateDir: string, state: MergeState): Promise<void> {
  state.updated_at = new Date().toISOString();
  const path = mergeStatePath(stateDir, state.workflow_id);
  await writeFileAtomic(path, `${JSON.stringify(state, null, 1)}\n`).catch(
    (err: NodeJS.ErrnoException) => {
      throw new RaymondError(
        'ERR_STATE_FILE',
        `cannot write the merge state: ${err.code ?? err.message}`,
        { file: path },
      );
    },
  );
}

/** What `--status` shows of a run's merges: their resolution turns and cost, and each BRANCH's counts. */
export interface MergeStatus {
  cost_usd: number;
  turns: MergeTurn[];
  into: Array<{ branch: string; merged: number; left_out: number }>;
}

/** Where each agent's branch was merged, by agent id (the last BRANCH it went into), for the run's worktree summary. */
export function mergedInto(state: MergeState | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const t of Object.values(state?.targets ?? {})) {
    for (const b of Object.values(t.branches)) if (b.status === 'merged') out.set(b.agent, t.into);
  }
  return out;
}

/** A run's merges as `--status` shows them, or undefined when it was never merged. */
export async function mergeStatus(
  stateDir: string,
  workflowId: string,
): Promise<MergeStatus | undefined> {
  const state = await readMergeState(stateDir, workflowId);
  if (!state) return undefined;
  const into = Object.values(state.targets).map((t) => {
    const entries = Object.values(t.branches);
    return {
      branch: t.into,
      merged: entries.filter((e) => e.status === 'merged').length,
      left_out: entries.filter((e) => e.status !== 'merged' && e.status !== 'nothing').length,
    };
  });
  return { cost_usd: state.total_cost_usd, turns: state.turns, into };
}
