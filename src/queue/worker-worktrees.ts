import type { WorktreeRef } from '../../machines/types.js';
import { RaymondError } from '../errors.js';
import { git, serialized } from '../worktrees/git.js';
import { branchExists } from '../worktrees/git-worktrees.js';
import { createWorktreePool, type WorktreePool } from '../worktrees/worktree-pool.js';

/**
 * A worker's worktrees: one folder per agent (at the path the coordinator
 * names, mapped onto --workdir), its branch fetched from the push remote
 * when another worker ran the agent before, and pushed back whenever the
 * agent's step moved it, so that no commit lives only on one machine.
 */
export class WorkerWorktrees {
  private readonly pools = new Map<string, WorktreePool>();
  /** Branch → the commit this worker last pushed, to push only what moved. */
  private readonly pushed = new Map<string, string>();

  private pool(run: string): WorktreePool {
    let p = this.pools.get(run);
    if (!p) this.pools.set(run, (p = createWorktreePool(run, { ownsFolders: false })));
    return p;
  }

  /** Checks the agent's branch out for a step, fetching it (or its base) from the remote if this checkout lacks it. */
  async acquire(run: string, w: WorktreeRef, agentId: string, remote: string): Promise<string> {
    await serialized(w.repo, () => this.sync(w, remote));
    return this.pool(run).acquire({ ...w, mode: 'off' }, agentId);
  }

  private async sync(w: WorktreeRef, remote: string): Promise<void> {
    if (!(await branchExists(w.repo, w.branch))) {
      // Another worker ran this agent before: its work is on the remote.
      const fetched = await git(
        w.repo,
        ['fetch', '--quiet', remote, `+refs/heads/${w.branch}:refs/heads/${w.branch}`],
        w.repo,
      );
      if (fetched.ok) {
        this.pushed.set(
          w.branch,
          (await git(w.repo, ['rev-parse', `refs/heads/${w.branch}`], w.repo)).stdout,
        );
        return;
      }
    }
    if (!(await git(w.repo, ['cat-file', '-e', `${w.base}^{commit}`], w.repo)).ok) {
      const fetched = await git(w.repo, ['fetch', '--quiet', remote], w.repo);
      if (
        !fetched.ok ||
        !(await git(w.repo, ['cat-file', '-e', `${w.base}^{commit}`], w.repo)).ok
      ) {
        throw new RaymondError(
          'ERR_WORKTREE',
          `this worker's checkout lacks the base commit ${w.base.slice(0, 10)}, and ${remote} does not have it either: push it from the coordinator's checkout`,
          { file: w.repo },
        );
      }
    }
  }

  /** Pushes the agent's branch to the remote if it moved since this worker last pushed it. */
  async push(w: WorktreeRef, remote: string): Promise<boolean> {
    const head = await git(
      w.repo,
      ['rev-parse', '--verify', '--quiet', `refs/heads/${w.branch}`],
      w.repo,
    );
    if (!head.ok || head.stdout === w.base || this.pushed.get(w.branch) === head.stdout)
      return false;
    const r = await git(
      w.repo,
      ['push', '--quiet', '--force', remote, `refs/heads/${w.branch}:refs/heads/${w.branch}`],
      w.repo,
    );
    if (!r.ok)
      throw new RaymondError(
        'ERR_WORKTREE',
        `cannot push branch ${w.branch} to ${remote}: ${r.error}`,
        { file: w.repo },
      );
    this.pushed.set(w.branch, head.stdout);
    return true;
  }

  /** The agent ended: its work is saved and summarized as a local run does, and its branch pushed. */
  async finish(run: string, w: WorktreeRef, agentId: string, remote: string): Promise<WorktreeRef> {
    const path = await this.acquire(run, w, agentId, remote);
    // The run's own mode is kept in the record: the folder on this worker is the agent's alone either way.
    const done = {
      ...(await this.pool(run).finish({ ...w, path, mode: 'off' }, agentId)),
      mode: w.mode,
    };
    if (done.removed) return done;
    await this.push(done, remote);
    return { ...done, pushed: remote };
  }

  /** Lets go of a run's pool (folders no live agent of it holds), once the run went quiet. */
  async closeRun(run: string): Promise<void> {
    const p = this.pools.get(run);
    this.pools.delete(run);
    await p?.close();
  }

  async close(): Promise<void> {
    for (const p of this.pools.values()) await p.close().catch(() => undefined);
  }
}
