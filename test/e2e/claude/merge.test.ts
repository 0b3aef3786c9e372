import { usd } from '../../../machines/money.js';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { CLI, raymond, sh } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';
import { git, makeRepo, removeTemps } from '../../helpers/git-repo.js';

const box = new ClaudeSandbox();
before(() => box.start());
after(async () => {
  await box.stop();
  removeTemps();
});

/** The line counts of every transcript Claude Code keeps of `session` (merge copies it to the fix folder's project). */
function transcriptLines(session: string): number[] {
  const projects = join(box.home, '.claude/projects');
  return readdirSync(projects).flatMap((dir) => {
    try {
      return [
        readFileSync(join(projects, dir, `${session}.jsonl`), 'utf8')
          .trim()
          .split('\n').length,
      ];
    } catch {
      return [];
    }
  });
}

describe('raymond merge with a Claude Code worker (real claude, scripted API)', () => {
  it("a conflict goes back to the worker's own session, forked, which resolves and commits it; the fix is merged and its cost is the run's", async () => {
    const repo = makeRepo({ 'README.md': 'hello\n' });
    const s = box.server;
    // Each worker edits the one line of README.md its own way and commits.
    s.on(/^EDIT-README (\w+)/, (r) => {
      const which = /^EDIT-README (\w+)/.exec(r.prompt)![1]!;
      if (r.afterTool) return { text: `<result>edited ${which}</result>` };
      return {
        toolUse: {
          name: 'Bash',
          input: {
            command: `printf 'hello from ${which}\\n' > README.md && git commit -qam "edit by ${which}"`,
            description: 'edit',
          },
        },
      };
    });
    // The resolution turn: keeps both lines and concludes the merge the folder is in.
    s.on('Raymond is merging the branches of run confl', (r) => {
      if (r.afterTool) return { text: 'Kept both lines and committed.' };
      return {
        toolUse: {
          name: 'Bash',
          input: {
            command:
              "printf 'hello from one\\nhello from two\\n' > README.md && git add README.md && git commit -qm 'resolve: keep both greetings'",
            description: 'resolve',
          },
        },
      };
    });
    const wf = box.write(
      {
        'START.sh': sh(
          `echo '<fork next="DONE.sh" worktree="w" which="one">W.md</fork><fork next="DONE.sh" worktree="w" which="two">W.md</fork>'`,
        ),
        'W.md': 'EDIT-README {{which}}: change the greeting in README.md and commit.',
        'DONE.sh': sh('echo "<result>forked</result>"'),
      },
      'confl-wf',
    );
    const env = box.env({ IS_SANDBOX: '1' });
    const run = await raymond(
      [
        wf,
        '--workflow-id',
        'confl',
        '--dangerously-skip-permissions',
        '--quiet',
        '--max-parallel',
        '1',
      ],
      { cwd: repo, env, timeoutMs: 120_000 },
    );
    assert.equal(run.code, 0, run.stderr);
    const state = JSON.parse(
      (await raymond(['--status', 'confl', '--json'], { cwd: repo, env })).stdout,
    ) as { total_cost_usd: number; agents: Array<{ id: string; session: string }> };
    const runCost = state.total_cost_usd;
    assert.ok(runCost > 0);
    const w2 = state.agents.find((a) => a.id === 'main_w2')!;
    const [w2Lines] = transcriptLines(w2.session);

    const r = await raymond(
      [
        'merge',
        'confl',
        '--into',
        'confl-merged',
        '--check',
        'grep -q "hello from two" README.md || ! git log -1 --format=%s | grep -q two',
        '--json',
      ],
      { cwd: repo, env, timeoutMs: 180_000 },
    );
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    const out = JSON.parse(r.stdout) as {
      merged: Array<{
        agent: string;
        resolved: boolean;
        attempts: number;
        cost_usd: number;
        fix_commits: Array<{ subject: string }>;
      }>;
      left_out: unknown[];
      cost_usd: number;
    };
    assert.deepEqual(out.left_out, []);
    assert.deepEqual(
      out.merged.map((m) => [m.agent, m.resolved]),
      [
        ['main_w1', false],
        ['main_w2', true],
      ],
    );
    const fixed = out.merged[1]!;
    assert.equal(fixed.attempts, 1);
    assert.deepEqual(
      fixed.fix_commits.map((c) => c.subject),
      ['resolve: keep both greetings'],
    );
    assert.ok(fixed.cost_usd > 0 && out.cost_usd === fixed.cost_usd, JSON.stringify(out));
    assert.equal(git(repo, 'show', 'confl-merged:README.md'), 'hello from one\nhello from two');
    assert.equal(
      readFileSync(join(repo, 'README.md'), 'utf8'),
      'hello\n',
      "the user's checkout is untouched",
    );
    assert.match(r.stderr, /^ {2}sending it back to main_w2's session \(resolution 1 of 2\)$/m);
    assert.match(r.stderr, /^ {2}\[main_w2\] Kept both lines and committed\.$/m);

    // The resolution turn was the worker's session, forked: it saw the worker's own turn, in the fix folder.
    const [turn] = s.requestsFor('Raymond is merging the branches of run confl');
    assert.match(turn!.transcript, /EDIT-README two/, "the worker's conversation");
    assert.match(turn!.prompt, /conflicts with confl-merged in: README\.md/);
    assert.match(turn!.prompt, /that merge is in progress and stopped on conflicts in README\.md/);
    assert.match(
      turn!.system + turn!.transcript,
      /Primary working directory: .*\/\.raymond\/merges\/confl\/main_w2 \(was .*\/\.raymond\/worktrees\/confl\/pool-\d+\)/,
    );
    assert.deepEqual(
      transcriptLines(w2.session),
      [w2Lines, w2Lines],
      "the worker's own session is as it was (and its copy too)",
    );

    // Its cost is in the run's total, and --status lists the turn.
    const status = JSON.parse(
      (await raymond(['--status', 'confl', '--json'], { cwd: repo, env })).stdout,
    ) as {
      total_cost_usd: number;
      merge: { cost_usd: number; turns: Array<{ agent: string; from: string }> };
    };
    assert.ok(
      Math.abs(status.total_cost_usd - (runCost + fixed.cost_usd)) < 1e-9,
      `${status.total_cost_usd} = ${runCost} + ${fixed.cost_usd}`,
    );
    assert.deepEqual(
      status.merge.turns.map((t) => [t.agent, t.from]),
      [['main_w2', w2.session]],
    );
    const text = await raymond(['--status', 'confl'], { cwd: repo, env });
    assert.match(
      text.stdout,
      /^merge: 1 resolution turn, \$[\d.]+; into confl-merged \(2 merged, 0 left out\)$/m,
    );
    assert.match(
      text.stdout,
      new RegExp(`^cost: ${usd(runCost + fixed.cost_usd).replace(/[$.]/g, '\\$&')} of `, 'm'),
    );

    // Into another branch with the budget already spent: no resolution turn, the branch left out saying why.
    const turns = s.requestsFor('Raymond is merging').length;
    const broke = await raymond(
      ['merge', 'confl', '--into', 'confl-broke', '--budget', '0.0001', '--json'],
      { cwd: repo, env, timeoutMs: 60_000 },
    );
    assert.equal(broke.code, 1, broke.stderr);
    const left = (
      JSON.parse(broke.stdout) as { left_out: Array<{ agent: string; reason: string }> }
    ).left_out;
    assert.deepEqual(
      left.map((l) => l.agent),
      ['main_w2'],
    );
    assert.match(
      left[0]!.reason,
      /^conflicts with confl-broke in README\.md; the budget of \$0\.0001 is spent \(run \$[\d.]+ \+ merge \$[\d.]+\), so no resolution turn$/,
    );
    assert.equal(s.requestsFor('Raymond is merging').length, turns, 'no turn was taken');

    // The worker's transcript gone from this machine (a queued run's, say): the turn fails, and says why.
    const projects = join(box.home, '.claude/projects');
    for (const dir of readdirSync(projects))
      rmSync(join(projects, dir, `${w2.session}.jsonl`), { force: true });
    const lost = await raymond(
      ['merge', 'confl', '--into', 'confl-lost', '--retries', '1', '--json'],
      { cwd: repo, env, timeoutMs: 60_000 },
    );
    assert.equal(lost.code, 1, lost.stderr);
    const lostOut = (
      JSON.parse(lost.stdout) as { left_out: Array<{ agent: string; reason: string }> }
    ).left_out;
    assert.deepEqual(
      lostOut.map((l) => l.agent),
      ['main_w2'],
    );
    assert.equal(
      lostOut[0]!.reason,
      `conflicts with confl-lost in README.md; its resolution turn failed: the transcript of session ${w2.session} is not on this machine`,
    );
  });

  it("a failed check goes back to the worker's session with the check's output; a fix it cannot commit (no shell) is committed for it", async () => {
    const repo = makeRepo({ 'README.md': 'hello\n' });
    const s = box.server;
    // The worker writes a new file with the Write tool (allowed under acceptEdits) and does not commit: the run saves it.
    s.on('WRITE-VALUE', (r) => {
      if (r.afterTool) return { text: '<result>wrote it</result>' };
      const cwd = /^WRITE-VALUE in (\S+):/.exec(r.prompt)![1]!;
      return {
        toolUse: { name: 'Write', input: { file_path: join(cwd, 'value.txt'), content: 'BAD\n' } },
      };
    });
    // The resolution reads the file, then rewrites it: Claude Code wants a file read before it is written over.
    let step = 0;
    s.on('Raymond is merging the branches of run checked', (r) => {
      const folder = /This folder, (\S+), is/.exec(r.prompt)![1]!;
      step++;
      if (step === 1)
        return { toolUse: { name: 'Read', input: { file_path: join(folder, 'value.txt') } } };
      if (step === 2)
        return {
          toolUse: {
            name: 'Write',
            input: { file_path: join(folder, 'value.txt'), content: 'GOOD\n' },
          },
        };
      return { text: 'Rewrote value.txt.' };
    });
    const wf = box.write(
      {
        'START.sh': sh(`echo '<fork next="DONE.sh" worktree="w">W.md</fork>'`),
        'W.md': 'WRITE-VALUE in {{worktree}}: write value.txt.',
        'DONE.sh': sh('echo "<result>forked</result>"'),
      },
      'checked-wf',
    );
    const env = box.env();
    const run = await raymond([wf, '--workflow-id', 'checked', '--quiet'], {
      cwd: repo,
      env,
      timeoutMs: 120_000,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(git(repo, 'show', 'raymond/checked/main_w1:value.txt'), 'BAD');
    const check = 'if grep -q BAD value.txt; then echo "value.txt still says BAD"; exit 1; fi';
    const r = await raymond(
      ['merge', 'checked', '--into', 'checked-merged', '--check', check, '--json'],
      { cwd: repo, env, timeoutMs: 180_000 },
    );
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    const out = JSON.parse(r.stdout) as {
      merged: Array<{ agent: string; resolved: boolean; fix_commits: Array<{ subject: string }> }>;
    };
    assert.deepEqual(
      out.merged.map((m) => [m.agent, m.resolved, m.fix_commits.map((c) => c.subject)]),
      [['main_w1', true, ['raymond merge: the fix main_w1 left uncommitted']]],
    );
    assert.equal(git(repo, 'show', 'checked-merged:value.txt'), 'GOOD');
    const [turn] = s.requestsFor('Raymond is merging the branches of run checked');
    assert.match(
      turn!.prompt,
      /merged cleanly, but the check `if grep .*` exited with 1 on the result\. Its output \(the end of it\):\n```\nvalue\.txt still says BAD\n```/,
    );
    assert.match(turn!.prompt, /with your commits rebased onto checked-merged/);
    assert.match(turn!.transcript, /WRITE-VALUE in/, "the worker's conversation");
  });

  it('killed with SIGKILL during a resolution turn, run again: the branch is resolved by a new turn and every branch merged once', async () => {
    const repo = makeRepo({ 'README.md': 'hello\n' });
    const s = box.server;
    s.on(/^KILL-EDIT (\w+)/, (r) => {
      const which = /^KILL-EDIT (\w+)/.exec(r.prompt)![1]!;
      if (r.afterTool) return { text: `<result>edited ${which}</result>` };
      return {
        toolUse: {
          name: 'Bash',
          input: {
            command: `printf '${which}\\n' > README.md && git commit -qam "edit by ${which}"`,
            description: 'edit',
          },
        },
      };
    });
    // The first resolution turn never gets an answer: merge is killed while it waits.
    let turns = 0;
    s.on('Raymond is merging the branches of run killres', (r) => {
      if (!r.afterTool) turns++;
      if (turns === 1) return { stall: true };
      if (r.afterTool) return { text: 'Resolved.' };
      return {
        toolUse: {
          name: 'Bash',
          input: {
            command:
              "printf 'one\\ntwo\\n' > README.md && git add README.md && git commit -q --no-edit",
            description: 'resolve',
          },
        },
      };
    });
    const wf = box.write(
      {
        'START.sh': sh(
          `echo '<fork next="DONE.sh" worktree="w" which="one">W.md</fork><fork next="DONE.sh" worktree="w" which="two">W.md</fork>'`,
        ),
        'W.md': 'KILL-EDIT {{which}}: change README.md and commit.',
        'DONE.sh': sh('echo "<result>forked</result>"'),
      },
      'killres-wf',
    );
    const env = box.env({ IS_SANDBOX: '1' });
    const run = await raymond(
      [
        wf,
        '--workflow-id',
        'killres',
        '--dangerously-skip-permissions',
        '--quiet',
        '--max-parallel',
        '1',
      ],
      { cwd: repo, env, timeoutMs: 120_000 },
    );
    assert.equal(run.code, 0, run.stderr);
    const child = execa(process.execPath, [CLI, 'merge', 'killres', '--into', 'killres-merged'], {
      cwd: repo,
      env,
      reject: false,
      stdin: 'ignore',
    });
    for (let i = 0; i < 600 && turns === 0; i++) await sleep(50);
    assert.equal(turns, 1, 'the first resolution turn started');
    child.kill('SIGKILL');
    await child;
    assert.equal(
      git(repo, 'log', '--merges', '--format=%s', 'killres-merged').split('\n').length,
      1,
      'one branch merged before the kill',
    );

    const r = await raymond(['merge', 'killres', '--into', 'killres-merged', '--json'], {
      cwd: repo,
      env,
      timeoutMs: 180_000,
    });
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    const out = JSON.parse(r.stdout) as {
      merged: Array<{ agent: string; resolved: boolean; attempts: number }>;
    };
    assert.deepEqual(
      out.merged.map((m) => [m.agent, m.resolved, m.attempts]),
      [
        ['main_w1', false, 0],
        ['main_w2', true, 2],
      ],
    );
    assert.equal(turns, 2);
    assert.equal(git(repo, 'show', 'killres-merged:README.md'), 'one\ntwo');
    assert.equal(
      git(repo, 'log', '--merges', '--first-parent', '--format=%s', 'killres-merged').split('\n')
        .length,
      2,
      'each branch merged once',
    );
  });
});
