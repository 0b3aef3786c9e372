import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { raymond, sh } from '../helpers/cli.js';
import { git, makeRepo, removeTemps } from '../helpers/git-repo.js';
import { PiSandbox } from '../helpers/pi-sandbox.js';

const box = new PiSandbox();
before(() => box.start());
after(async () => {
  await box.stop();
  removeTemps();
});

describe('raymond merge with pi workers (real pi, scripted API)', () => {
  it("a conflict goes back to the pi worker's own session, forked with pi --fork, and its fix is merged", async () => {
    const repo = makeRepo({ 'README.md': 'hello\n' });
    const s = box.server;
    s.on(/^PI-EDIT (\w+)/, (r) => {
      const which = /^PI-EDIT (\w+)/.exec(r.prompt)![1]!;
      if (r.afterTool) return { text: `<result>edited ${which}</result>` };
      return {
        toolUse: {
          name: 'bash',
          input: {
            command: `printf 'hello from ${which}\\n' > README.md && git commit -qam "edit by ${which}"`,
          },
        },
      };
    });
    s.on('Raymond is merging the branches of run pimerge', (r) => {
      if (r.afterTool) return { text: 'Kept both.' };
      return {
        toolUse: {
          name: 'bash',
          input: {
            command:
              "printf 'hello from one\\nhello from two\\n' > README.md && git add README.md && git commit -q --no-edit",
          },
        },
      };
    });
    const wf = box.write(
      {
        'workflow.yaml': 'backend: pi\n',
        'START.sh': sh(
          `echo '<fork next="DONE.sh" worktree="w" which="one">W.md</fork><fork next="DONE.sh" worktree="w" which="two">W.md</fork>'`,
        ),
        'W.md': 'PI-EDIT {{which}}: change the greeting and commit.',
        'DONE.sh': sh('echo "<result>forked</result>"'),
      },
      'pimerge-wf',
    );
    const env = box.env();
    // Skipped permissions give pi turns its bash tool, the resolution's as the workers'.
    const run = await raymond(
      [
        wf,
        '--workflow-id',
        'pimerge',
        '--dangerously-skip-permissions',
        '--quiet',
        '--max-parallel',
        '1',
      ],
      { cwd: repo, env, timeoutMs: 120_000 },
    );
    assert.equal(run.code, 0, run.stderr);
    const r = await raymond(['merge', 'pimerge', '--into', 'pi-merged', '--json'], {
      cwd: repo,
      env,
      timeoutMs: 120_000,
    });
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    const out = JSON.parse(r.stdout) as {
      merged: Array<{ agent: string; resolved: boolean; cost_usd: number }>;
    };
    assert.deepEqual(
      out.merged.map((m) => [m.agent, m.resolved]),
      [
        ['main_w1', false],
        ['main_w2', true],
      ],
    );
    assert.ok(out.merged[1]!.cost_usd > 0);
    assert.equal(git(repo, 'show', 'pi-merged:README.md'), 'hello from one\nhello from two');
    const [turn] = s.requestsFor('Raymond is merging the branches of run pimerge');
    assert.match(turn!.transcript, /PI-EDIT two/, "the worker's conversation");
    assert.doesNotMatch(turn!.transcript, /PI-EDIT one/);
  });
});
