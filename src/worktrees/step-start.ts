import { copyFile, rm } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorktreeRef, WorktreeStart } from '../../machines/worktree-types.js';
import { RaymondError } from '../errors.js';
import { git, serialized } from './git.js';
import { FALLBACK_IDENTITY } from './save-work.js';

/*
 * Where an agent's step starts in its worktree, and a step started again
 * from there. A step that commits and is then killed with Raymond would
 * otherwise run again on top of its own work (two commits, a change made
 * twice). At the end of each step the folder's state is recorded with the
 * agent (`from`, and `from_tree` for uncommitted work); the first time a
 * Raymond process hands the agent its folder, a folder found elsewhere
 * gets back to that point, and what the killed attempt left goes to a
 * branch of its own, so nothing is lost.
 */

type Held = WorktreeRef & { path: string };

/** Runs git in the folder, throwing ERR_WORKTREE with `what` when it fails. */
async function must(dir: string, args: string[], what: string, env?: Record<string, string>) {
  const r = await git(dir, args, dir, env);
  if (!r.ok) throw new RaymondError('ERR_WORKTREE', `${what}: ${r.error}`, { file: dir });
  return r.stdout;
}

/**
 * The folder as git would commit all of it (changes and untracked files;
 * ignored ones left out), without touching its index: its head and the id
 * of that tree. A copy of the index makes `add` rehash only what changed.
 */
async function snapshot(path: string): Promise<{ head: string; tree: string; headTree: string }> {
  const what = `cannot read the worktree ${path}`;
  const head = await must(path, ['rev-parse', 'HEAD'], what);
  const index = await must(
    path,
    ['rev-parse', '--path-format=absolute', '--git-path', 'index'],
    what,
  );
  const scratch = join(tmpdir(), `raymond-index-${randomUUID()}`);
  try {
    await copyFile(index, scratch).catch(() => undefined);
    const env = { GIT_INDEX_FILE: scratch };
    await must(path, ['add', '--all'], what, env);
    const tree = await must(path, ['write-tree'], what, env);
    const headTree = await must(path, ['rev-parse', 'HEAD^{tree}'], what);
    return { head, tree, headTree };
  } finally {
    await rm(scratch, { force: true });
  }
}

/** The folder's head when nothing in it differs from the head (ignored files aside), in two cheap commands; else undefined. */
async function cleanHead(path: string): Promise<string | undefined> {
  const head = await git(path, ['rev-parse', 'HEAD'], path);
  const status = await git(path, ['status', '--porcelain', '--untracked-files=all'], path);
  return head.ok && status.ok && status.stdout === '' ? head.stdout : undefined;
}

/** A commit holding `tree` on top of `head`, on no branch. */
function holdTree(path: string, tree: string, head: string, message: string): Promise<string> {
  return must(
    path,
    ['commit-tree', tree, '-p', head, '-m', message],
    `cannot save ${path}`,
    FALLBACK_IDENTITY,
  );
}

/**
 * Where the agent's next step starts in its folder, now that a step ended:
 * its head, and, when the folder holds uncommitted work, a commit of the
 * whole tree (kept alive by `refs/<branch>`, outside the branches).
 */
export async function recordStart(w: Held, agentId: string): Promise<WorktreeStart> {
  // Most steps leave their folder clean: the head is all there is to record.
  const clean = await cleanHead(w.path);
  if (clean !== undefined) {
    await letGo(w);
    return { from: clean };
  }
  const { head, tree, headTree } = await snapshot(w.path);
  const ref = `refs/${w.branch}`;
  if (tree === headTree) {
    await letGo(w);
    return { from: head };
  }
  const held = await holdTree(w.path, tree, head, `raymond: where ${agentId}'s next step starts`);
  await serialized(w.repo, () => must(w.repo, ['update-ref', ref, held], `cannot keep ${ref}`));
  return { from: head, from_tree: held };
}

/** What `restartFrom` did: the branch that keeps the interrupted attempt's work. */
export interface Restarted {
  branch: string;
  /** Where the step starts again. */
  from: string;
  /** The commit on it: the interrupted attempt's last commit, or one holding what it left uncommitted. */
  saved: string;
}

/**
 * The branches that keep the work of the agent's steps a stopped run left
 * half done, `<branch>-interrupted-<n>` (git cannot hold `<branch>/…`
 * beside the branch itself), by `n`.
 */
export async function interruptedBranches(w: WorktreeRef): Promise<string[]> {
  const prefix = `${w.branch}-interrupted-`;
  const listed = await git(
    w.repo,
    ['for-each-ref', '--format=%(refname:short)', `refs/heads/${prefix}*`],
    w.repo,
  );
  const n = (name: string) => Number(name.slice(prefix.length));
  return listed.stdout
    .split('\n')
    .filter((name) => name.startsWith(prefix) && Number.isInteger(n(name)))
    .sort((a, b) => n(a) - n(b));
}

/** The next free `<branch>-interrupted-<n>`. */
async function interruptedName(w: Held): Promise<string> {
  const last = (await interruptedBranches(w)).at(-1);
  const n = last === undefined ? 0 : Number(last.slice(`${w.branch}-interrupted-`.length));
  return `${w.branch}-interrupted-${n + 1}`;
}

/**
 * Before a step in a folder Raymond hands the agent for the first time in
 * this process: when the folder is not where the agent's last step ended
 * (a step started and was killed), keeps what is there on
 * `<branch>-interrupted-<n>`, puts the branch back at `from`, cleans the
 * folder, and brings back the uncommitted work `from_tree` held. Nothing
 * to do (undefined) when the folder is where it should be, or when the
 * agent has no recorded start (a state file from before this was kept).
 */
export async function restartFrom(w: Held, agentId: string): Promise<Restarted | undefined> {
  if (w.from === undefined) return undefined;
  // The common case, in two cheap commands: the branch where it was, nothing changed.
  if (w.from_tree === undefined && (await cleanHead(w.path)) === w.from) return undefined;
  const expected = `${w.from_tree ?? w.from}^{tree}`;
  const wanted = await git(w.path, ['rev-parse', '--verify', '--quiet', expected], w.path);
  // A start this checkout does not have (another machine's): nothing to compare with.
  if (!wanted.ok) return undefined;
  const now = await snapshot(w.path);
  if (now.head === w.from && now.tree === wanted.stdout) return undefined;
  const saved =
    now.tree === now.headTree
      ? now.head
      : await holdTree(
          w.path,
          now.tree,
          now.head,
          `raymond: what ${agentId}'s interrupted step left uncommitted`,
        );
  const branch = await serialized(w.repo, async () => {
    const name = await interruptedName(w);
    await must(w.repo, ['branch', name, saved], `cannot keep the interrupted work of ${agentId}`);
    return name;
  });
  const what = `cannot put ${w.path} back where ${agentId}'s step started`;
  await must(w.path, ['reset', '--quiet', '--hard', w.from], what);
  await must(w.path, ['clean', '--quiet', '-fd'], what);
  if (w.from_tree !== undefined) {
    // The uncommitted work comes back as changes to the head, not staged.
    await must(w.path, ['read-tree', '-m', '-u', 'HEAD', w.from_tree], what);
    await must(w.path, ['reset', '--quiet'], what);
  }
  return { branch, saved, from: w.from };
}

/** Lets go of the tree the agent's recorded start held (`refs/<branch>`), if it held one. */
async function letGo(w: WorktreeRef): Promise<void> {
  if (w.from_tree !== undefined)
    await serialized(w.repo, () => git(w.repo, ['update-ref', '-d', `refs/${w.branch}`], w.repo));
}

/** The head of the agent's branch, for an agent whose folder went back to the pool (a `<join>`). */
async function parkedStart(w: WorktreeRef): Promise<WorktreeStart> {
  const head = await must(
    w.repo,
    ['rev-parse', `refs/heads/${w.branch}`],
    `cannot read ${w.branch}`,
  );
  await letGo(w);
  return { from: head };
}

/** How an agent's step ended, for where its next one starts. */
export type StepEnd = 'stays' | 'parked' | 'ends';

/**
 * Where steps start in worktrees, for one Raymond process (a run, or a
 * queue worker). `resumed: false` (a new run): no step of it ran before
 * this process, so none is looked for.
 */
export interface WorktreeStarts {
  /** `restartFrom`, the first time this process hands the agent its folder; later, nothing. */
  restart(w: Held, agentId: string): Promise<Restarted | undefined>;
  /**
   * Where the agent's next step starts, its step ended with the agent in its
   * folder (`stays`) or its folder given back (`parked`); none when the
   * agent `ends`, whose held tree is let go.
   */
  record(w: WorktreeRef, agentId: string, end: StepEnd): Promise<WorktreeStart | undefined>;
}

export function createWorktreeStarts(resumed: boolean): WorktreeStarts {
  const checked = new Set<string>();
  return {
    async restart(w, agentId) {
      if (!resumed || checked.has(agentId)) return undefined;
      checked.add(agentId);
      return restartFrom(w, agentId);
    },
    async record(w, agentId, end) {
      if (end === 'ends') return void (await letGo(w));
      if (end === 'parked') return parkedStart(w);
      return w.path === undefined ? undefined : recordStart({ ...w, path: w.path }, agentId);
    },
  };
}
