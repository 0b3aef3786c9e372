import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { JoinEntry } from '../../machines/types.js';
import { raymond, sh } from '../helpers/cli.js';
import { git, makeRepo, removeTemps, tempDir } from '../helpers/git-repo.js';
import { writeFileSync, chmodSync, mkdirSync } from 'node:fs';

after(() => removeTemps());

function workflow(files: Record<string, string>): string {
  const dir = tempDir('raymond-wf-');
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(join(dir, name), text);
    chmodSync(join(dir, name), 0o755);
  }
  return dir;
}

describe('<join> with worktrees', () => {
  it("a joining parent gives its pooled folder back for the wait (its uncommitted work saved on its branch), and its workers' entries carry branch and commits", async () => {
    const repo = makeRepo();
    const wf = workflow({
      'START.sh': sh('echo "<reset worktree=\\"lead\\">LEAD.sh</reset>"'),
      'LEAD.sh': sh(
        'echo draft > lead.txt',
        'for t in a b; do echo "<fork worktree=\\"$t\\" t=\\"$t\\">W.sh</fork>"; done',
        'echo "<join>LEAD2.sh</join>"',
      ),
      'W.sh': sh(
        'echo "$t" > "$t.txt"',
        'git add "$t.txt"',
        'git commit -qm "add $t"',
        'echo "<result>wrote $t</result>"',
      ),
      'LEAD2.sh': sh(
        '[ "$(cat lead.txt)" = draft ] || { echo "lead.txt lost" >&2; exit 5; }',
        'printf "<result>%s</result>" "$RAYMOND_INPUT"',
      ),
    });
    const r = await raymond([wf, '--json', '--workflow-id', 'wtjoin', '--max-parallel', '1'], {
      cwd: repo,
    });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as {
      results: Record<string, string>;
      worktree_pool: { peak_alive: number; reused: number };
    };
    assert.equal(
      out.worktree_pool.peak_alive,
      1,
      'the workers took the folder the waiting parent gave back',
    );
    assert.ok(out.worktree_pool.reused >= 2, `reused ${out.worktree_pool.reused} times`);
    const entries = JSON.parse(out.results.main!) as JoinEntry[];
    assert.deepEqual(
      entries.map((e) => [e.status, e.result, e.branch, e.commits]),
      [
        ['completed', 'wrote a', 'raymond/wtjoin/main_w1', 1],
        ['completed', 'wrote b', 'raymond/wtjoin/main_w2', 1],
      ],
    );
    assert.match(
      git(repo, 'log', '--format=%s', 'raymond/wtjoin/main'),
      /raymond: work main left uncommitted/,
    );
  });
});
