import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolvePrompt, troubleLine } from '../../src/merge/resolve-prompt.js';

const facts = {
  workflowId: 'run1',
  into: 'merged',
  intoSha: '0123456789abcdef',
  branch: 'raymond/run1/main_w2',
  fixBranch: 'raymond/run1/main_w2-fix',
  folder: '/r/.raymond/merges/run1/main_w2',
};

describe('resolvePrompt', () => {
  it('tells a conflict, and a folder where merging BRANCH in stopped, with the markers in the files', () => {
    const p = resolvePrompt({
      ...facts,
      trouble: { kind: 'conflict', files: ['a.txt'], status: 'UU a.txt' },
      fix: { kind: 'merging', head: 'h', files: ['a.txt'], status: 'UU a.txt' },
      check: './check.sh',
    });
    assert.match(p, /Your branch raymond\/run1\/main_w2 conflicts with merged in: a\.txt\./);
    assert.match(
      p,
      /on branch raymond\/run1\/main_w2-fix, made from your branch\. Rebasing your commits onto merged \(0123456789\) stopped on a conflict, so the rebase was aborted/,
    );
    assert.match(
      p,
      /that merge is in progress and stopped on conflicts in a\.txt, whose conflict markers are in the files/,
    );
    assert.match(
      p,
      /and `\.\/check\.sh` passes here\. Then commit \(git add the resolved files, then git commit --no-edit, which concludes the merge\)\./,
    );
    assert.match(p, /do not switch branches, rebase, reset or push/);
  });

  it('tells a failed check with its output, and a clean rebased folder', () => {
    const p = resolvePrompt({
      ...facts,
      trouble: {
        kind: 'check',
        command: 'npm test',
        how: 'exited with 1',
        output: 'FAIL test/x\n',
      },
      fix: { kind: 'rebased', head: 'h' },
    });
    assert.match(
      p,
      /merged cleanly, but the check `npm test` exited with 1 on the result\. Its output \(the end of it\):\n```\nFAIL test\/x\n```/,
    );
    assert.match(
      p,
      /your commits rebased onto merged \(0123456789\)\. No operation is in progress and the folder is clean\./,
    );
    assert.match(p, /Then commit\. Stay on/);
  });

  it('says the trouble in one line', () => {
    assert.equal(
      troubleLine({ kind: 'conflict', files: ['a', 'b'], status: '' }, 'm'),
      'conflicts with m in a, b',
    );
    assert.equal(
      troubleLine(
        { kind: 'check', command: './c.sh', how: 'was killed by SIGKILL', output: '' },
        'm',
      ),
      'the check `./c.sh` was killed by SIGKILL',
    );
  });
});
