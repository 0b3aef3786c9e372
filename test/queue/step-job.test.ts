import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rebase, rebaseAgent, rebaseText, rebaseWorktree } from '../../src/queue/step-job.js';
import type { AgentFields, WorktreeRef } from '../../machines/types.js';

const FROM = '/srv/repo';
const TO = '/home/worker/w';

describe('rebase', () => {
  const cases: Array<[string, string]> = [
    ['/srv/repo/a/b.md', '/home/worker/w/a/b.md'],
    ['/srv/repo/', '/home/worker/w/'],
    ['/srv/repo', '/home/worker/w'],
    ['/srv/repo2', '/srv/repo2'],
    ['/srv/repo2/a', '/srv/repo2/a'],
    ['/srv/repo-old/a', '/srv/repo-old/a'],
    ['/srv', '/srv'],
    ['/elsewhere/srv/repo/a', '/elsewhere/srv/repo/a'],
    ['relative/srv/repo', 'relative/srv/repo'],
  ];
  for (const [path, want] of cases) {
    it(`${path} -> ${want}`, () => assert.equal(rebase(path, FROM, TO), want));
  }

  it('leaves every path alone when both roots are the same', () => {
    assert.equal(rebase('/srv/repo/a', FROM, FROM), '/srv/repo/a');
  });
});

describe('rebaseText', () => {
  const cases: Array<[string, string, string]> = [
    ['a mention followed by /', 'read /srv/repo/a.md first', 'read /home/worker/w/a.md first'],
    ['a mention at the end of the text', 'cd /srv/repo', 'cd /home/worker/w'],
    [
      'a mention at the end of a sentence',
      'Work in /srv/repo. Then stop.',
      'Work in /home/worker/w. Then stop.',
    ],
    [
      'a mention before other punctuation',
      '(/srv/repo), "/srv/repo"; /srv/repo: /srv/repo!',
      '(/home/worker/w), "/home/worker/w"; /home/worker/w: /home/worker/w!',
    ],
    ['a mention before a newline', 'root: /srv/repo\nnext', 'root: /home/worker/w\nnext'],
    ['every mention', '/srv/repo/a and /srv/repo/b', '/home/worker/w/a and /home/worker/w/b'],
    ['not a sibling with a digit', 'see /srv/repo2/x', 'see /srv/repo2/x'],
    ['not a sibling with a dash', 'see /srv/repo-old', 'see /srv/repo-old'],
    [
      'not a sibling with an extension',
      'see /srv/repo.bak and /srv/repo.bak/x',
      'see /srv/repo.bak and /srv/repo.bak/x',
    ],
    ['not a sibling with an underscore', 'see /srv/repo_x', 'see /srv/repo_x'],
    [
      'mixed',
      '/srv/repo2 /srv/repo /srv/repo.bak /srv/repo/a.',
      '/srv/repo2 /home/worker/w /srv/repo.bak /home/worker/w/a.',
    ],
    ['no mention', 'nothing here', 'nothing here'],
  ];
  for (const [what, text, want] of cases) {
    it(what, () => assert.equal(rebaseText(text, FROM, TO), want));
  }

  it('takes a root with regex characters literally', () => {
    assert.equal(
      rebaseText('a /s+v/(r).x/f and /ssv/(r)yx/f', '/s+v/(r).x', '/t'),
      'a /t/f and /ssv/(r)yx/f',
    );
  });

  it('leaves the text alone for the same root, or an empty or / root', () => {
    assert.equal(rebaseText('cd /srv/repo', FROM, FROM), 'cd /srv/repo');
    assert.equal(rebaseText('cd /srv/repo', '', TO), 'cd /srv/repo');
    assert.equal(rebaseText('cd /srv/repo', '/', TO), 'cd /srv/repo');
  });
});

const worktree: WorktreeRef = {
  name: 'wt',
  repo: '/srv/repo',
  path: '/srv/repo/.raymond/worktrees/wt-1',
  branch: 'raymond/wt-1',
  base: 'abc123',
};

function agent(extra: Partial<AgentFields> = {}): AgentFields {
  return {
    id: 'main',
    state: 'START.md',
    session: null,
    branchFrom: null,
    cwd: '/srv/repo/sub',
    attributes: { x: '/srv/repo' },
    input: '/srv/repo',
    status: 'active',
    ...extra,
  };
}

describe('rebaseWorktree', () => {
  it('moves the repository and the folder, and keeps the rest', () => {
    assert.deepEqual(rebaseWorktree(worktree, FROM, TO), {
      ...worktree,
      repo: TO,
      path: '/home/worker/w/.raymond/worktrees/wt-1',
    });
  });

  it('leaves an absent path absent, and a repository outside the root alone', () => {
    const { path: _, ...noPath } = worktree;
    const out = rebaseWorktree({ ...noPath, repo: '/srv/repo2' }, FROM, TO);
    assert.equal(out.repo, '/srv/repo2');
    assert.ok(!('path' in out));
  });

  it('does not change the worktree it was given', () => {
    const copy = structuredClone(worktree);
    rebaseWorktree(worktree, FROM, TO);
    assert.deepEqual(worktree, copy);
  });
});

describe('rebaseAgent', () => {
  it('moves cwd, task_folder and the worktree; attributes and input are left as they are', () => {
    const a = agent({ task_folder: '/srv/repo/.raymond/tasks/r/main', worktree });
    const out = rebaseAgent(a, FROM, TO);
    assert.deepEqual(out, {
      ...a,
      cwd: '/home/worker/w/sub',
      task_folder: '/home/worker/w/.raymond/tasks/r/main',
      worktree: { ...worktree, repo: TO, path: '/home/worker/w/.raymond/worktrees/wt-1' },
    });
    assert.equal(a.cwd, '/srv/repo/sub', 'the agent given is not changed');
    assert.equal(a.worktree!.repo, '/srv/repo');
  });

  it('adds no task_folder or worktree the agent did not have', () => {
    const out = rebaseAgent(agent(), FROM, TO);
    assert.equal(out.cwd, '/home/worker/w/sub');
    assert.ok(!('task_folder' in out) && !('worktree' in out));
  });

  it('leaves paths outside the root alone', () => {
    const out = rebaseAgent(agent({ cwd: '/srv/repo2', task_folder: '/tmp/tasks' }), FROM, TO);
    assert.equal(out.cwd, '/srv/repo2');
    assert.equal(out.task_folder, '/tmp/tasks');
  });
});
