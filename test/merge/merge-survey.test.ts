import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { StoredAgent, WorkflowState } from '../../machines/types.js';
import type { MergeTarget } from '../../src/merge/merge-state.js';
import { survey } from '../../src/merge/merge-survey.js';
import { commitFile, git, makeRepo, removeTemps } from '../helpers/git-repo.js';

after(removeTemps);

function agent(
  repo: string,
  base: string,
  id: string,
  status: StoredAgent['status'],
  extra: Partial<StoredAgent['worktree']> = {},
): StoredAgent {
  return {
    id,
    state: 'W.sh',
    session: null,
    branchFrom: null,
    cwd: repo,
    attributes: {},
    input: null,
    status,
    stack: [],
    worktree: { name: 'w', repo, branch: `raymond/r/${id}`, base, ...extra },
  };
}

describe('survey (real git)', () => {
  it('tells unfinished, failed, empty, gone and mergeable branches apart; a branch at its base is not "merged"', async () => {
    const repo = makeRepo();
    const base = git(repo, 'rev-parse', 'HEAD');
    for (const id of ['busy', 'broke', 'idle', 'work'])
      git(repo, 'branch', `raymond/r/${id}`, base);
    git(repo, 'switch', '-q', 'raymond/r/work');
    commitFile(repo, 'w.txt', 'w\n');
    git(repo, 'switch', '-q', 'main');
    git(repo, 'branch', 'into', base);
    const run = {
      agents: [
        agent(repo, base, 'busy', 'active'),
        { ...agent(repo, base, 'broke', 'failed'), error: 'W.sh: exited with code 1' },
        agent(repo, base, 'idle', 'terminated'),
        agent(repo, base, 'gone', 'terminated'),
        agent(repo, base, 'pushed', 'terminated', { pushed: 'origin' }),
        agent(repo, base, 'work', 'terminated'),
      ],
    } as unknown as WorkflowState;
    const target: MergeTarget = { into: 'into', repo, base, order: [], branches: {} };
    const out = await survey(run, target, base);
    assert.deepEqual(
      out.map((c) => [c.agent.id, c.entry.status, c.entry.reason ?? '']),
      [
        ['busy', 'left_out', 'its agent has not finished (active)'],
        ['broke', 'left_out', 'its agent failed: W.sh: exited with code 1'],
        ['idle', 'nothing', 'no commits'],
        ['work', 'pending', ''],
        ['gone', 'left_out', 'the branch is gone'],
        [
          'pushed',
          'left_out',
          'the branch is on origin, not here: git fetch origin raymond/r/pushed:raymond/r/pushed',
        ],
      ],
    );
  });
});
