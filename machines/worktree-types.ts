/*
 * The worktrees of agents as data: what a tag asks for, how folders are
 * handed out, and what the state file keeps of an agent's worktree.
 */

/** `worktree="NAME"` (and `base="REV"`, `sparse="DIR ..."`) on a `<fork>` or `<reset>`. */
export interface WorktreeRequest {
  name: string;
  base?: string;
  /** Folders of a cone-mode sparse checkout; absent checks out everything. */
  sparse?: string[];
}

/**
 * How agents get their worktree folders: from a pool sized to concurrency,
 * keeping ignored files warm between agents (`keep-ignored`) or removing them
 * (`clean`), or one folder per agent kept until it ends (`off`).
 */
export type WorktreeMode = 'keep-ignored' | 'clean' | 'off';

/** Every `--worktrees` mode. */
export const WORKTREE_MODES: readonly WorktreeMode[] = ['keep-ignored', 'clean', 'off'];

/** Folders from a pool sized to concurrency, ignored files kept warm. */
export const DEFAULT_WORKTREE_MODE: WorktreeMode = 'keep-ignored';

/** A git worktree an agent works in: its own branch, checked out in a folder while the agent lives. */
export interface WorktreeRef {
  /** The `worktree="..."` name the workflow gave. */
  name: string;
  repo: string;
  /** Where the branch is checked out for the agent; absent until the agent first runs. */
  path?: string;
  branch: string;
  /** Commit the branch started from. */
  base: string;
  sparse?: string[];
  /** Absent in state files written before the pool: one folder per agent, as `off`. */
  mode?: WorktreeMode;
  /** Filled in when the agent terminated. */
  commits?: number;
  diffstat?: string;
  dirty?: boolean;
  /** The branch had no changes and was deleted (and, with `off`, its folder removed). */
  removed?: boolean;
  /** Sha of the commit that saved what the agent left uncommitted, on its branch. */
  saved?: string;
  /** The remote its branch was pushed to, by the worker that ran the agent (`--queue`). */
  pushed?: string;
  /**
   * The commit the agent's next step starts from: its branch's head when its
   * last step ended (or `base`, before its first). A step found to have
   * started and changed the folder without ending (Raymond was killed) is
   * run again from here (src/worktrees/step-start.ts).
   */
  from?: string;
  /**
   * Where the folder also held uncommitted work at that point: a commit (not
   * on any branch; kept alive by `refs/<branch>`) holding the whole tree, so
   * the re-run gets that work back too.
   */
  from_tree?: string;
}

/** Where an agent's next step starts in its worktree (WorktreeRef's `from` and `from_tree`). */
export interface WorktreeStart {
  from: string;
  from_tree?: string;
}
