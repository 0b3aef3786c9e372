import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { ROOT, raymond, summary } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

const git = async (cwd: string, ...args: string[]) =>
  (await execa('git', args, { cwd })).stdout.trim();

/**
 * A small repository with four files to refactor (foo -> bar, one needing
 * nothing), a NOTES.md two workers append to (so their branches conflict),
 * and a check that fails on a conflict marker.
 */
async function makeRepo(name = 'repo'): Promise<string> {
  const repo = join(box.dir, name);
  mkdirSync(repo);
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'config', 'user.email', 'test@example.com');
  await git(repo, 'config', 'user.name', 'Test');
  writeFileSync(join(repo, 'refactor.md'), 'Rename foo to bar.\n');
  writeFileSync(join(repo, 'a.txt'), 'foo one\n');
  writeFileSync(join(repo, 'b.txt'), 'foo two\n');
  writeFileSync(join(repo, 'c.txt'), 'nothing to rename\n');
  writeFileSync(join(repo, 'd.txt'), 'foo four\n');
  writeFileSync(join(repo, 'NOTES.md'), 'notes\n');
  // The project's check: no conflict marker, and the notes start as they should.
  writeFileSync(
    join(repo, 'check.sh'),
    '#!/bin/sh\n! grep -rlE "^(<<<<<<<|>>>>>>>)" --include="*.md" --include="*.txt" . && [ "$(head -1 NOTES.md)" = notes ]\n',
    { mode: 0o755 },
  );
  writeFileSync(join(repo, '.gitignore'), '.raymond/\n');
  await git(repo, 'add', '-A');
  await git(repo, 'commit', '-qm', 'initial');
  return repo;
}

/**
 * The example's states copied to `name`, its worker's prompt marked with
 * `marker` (so a test's scripted replies are its own), `worker` changing the
 * worker's text further.
 */
function exampleCopy(name: string, marker: string, worker = (text: string) => text): string {
  const wf = join(box.dir, name);
  mkdirSync(wf);
  for (const f of ['START.sh', 'MERGE.sh', 'WORKER.md']) {
    const text = readFileSync(join(ROOT, 'workflows/examples/batch-refactor', f), 'utf8');
    writeFileSync(
      join(wf, f),
      f === 'WORKER.md'
        ? worker(text).replace('Apply the refactoring', `${marker}: apply the refactoring`)
        : text,
      { mode: 0o755 },
    );
  }
  return wf;
}

describe('batch refactor across git worktrees (real claude, scripted API)', () => {
  it("forks a worker per target, joins them, and merges their branches into one checked branch, a conflict resolved by its worker's own session", async () => {
    const repo = await makeRepo();
    const s = box.server;
    s.on('Apply the refactoring described in', (r) => {
      const target = /to `([^`]+)` only/.exec(r.prompt)![1]!;
      if (r.afterTool) return { text: `<result>renamed foo in ${target}</result>` };
      // a.txt and b.txt also note themselves on NOTES.md's second line: their branches conflict there.
      const note =
        target === 'a.txt' || target === 'b.txt' ? ` && echo "${target} done" >> NOTES.md` : '';
      const command =
        target === 'c.txt'
          ? 'grep -q foo c.txt || true'
          : `sed -i 's/foo/bar/' ${target}${note} && git add -A && git commit -qm "refactor: ${target}"`;
      return { toolUse: { name: 'Bash', input: { command, description: `refactor ${target}` } } };
    });
    s.on('Raymond is merging the branches of run batch', (r) => {
      if (r.afterTool) return { text: 'kept both notes' };
      const command =
        "printf 'notes\\na.txt done\\nb.txt done\\n' > NOTES.md && git add NOTES.md && (git commit -q --no-edit || git commit -qm 'merge notes')";
      return {
        toolUse: { name: 'Bash', input: { command, description: 'resolve NOTES.md' } },
        usage: { input_tokens: 3000, output_tokens: 100 },
      };
    });
    const r = await raymond(
      [
        join(ROOT, 'workflows/examples/batch-refactor'),
        '--input',
        'a.txt b.txt c.txt d.txt',
        '--workflow-id',
        'batch',
        '--json',
        '--dangerously-skip-permissions',
      ],
      { cwd: repo, env: box.env({ IS_SANDBOX: '1' }) },
    );
    assert.equal(r.code, 0, r.stderr);
    const out = summary(r);
    assert.match(
      out.results.main!,
      /^4 workers \(0 failed\)\. raymond\/batch\/merged \(created at the run's base [0-9a-f]+\) is at [0-9a-f]+: 3 merged/,
    );
    assert.match(
      out.results.main!,
      /main_worker2 +raymond\/batch\/main_worker2 +as [0-9a-f]+; resolved by its agent's session in 1 turn/,
    );
    assert.equal(out.results.main_worker1, 'renamed foo in a.txt');
    // One branch holds every change, and its check passes.
    for (const [file, text] of [
      ['a.txt', 'bar one'],
      ['b.txt', 'bar two'],
      ['d.txt', 'bar four'],
      ['c.txt', 'nothing to rename'],
      ['NOTES.md', 'notes\na.txt done\nb.txt done'],
    ]) {
      assert.equal(await git(repo, 'show', `raymond/batch/merged:${file}`), text, file);
    }
    const checkout = join(box.dir, 'merged-check');
    await git(repo, 'worktree', 'add', '-q', checkout, 'raymond/batch/merged');
    await execa('./check.sh', { cwd: checkout });
    // The merged branches are gone; the user's checkout is as it was.
    assert.equal(await git(repo, 'branch', '--list', 'raymond/batch/main_worker*'), '');
    assert.equal(await git(repo, 'rev-parse', '--abbrev-ref', 'HEAD'), 'main');
    assert.equal(await git(repo, 'status', '--porcelain'), '');
    assert.equal(await git(repo, 'show', 'main:a.txt'), 'foo one', 'main is untouched');
    // The resolution turn is charged to the run.
    const status = await raymond(['--status', 'batch', '--json'], { cwd: repo });
    const st = JSON.parse(status.stdout) as {
      total_cost_usd: number;
      merge?: { cost_usd: number };
    };
    assert.ok((st.merge?.cost_usd ?? 0) > 0, "merge's turn cost something");
    assert.ok(st.total_cost_usd >= out.total_cost_usd, "the run's total holds merge's turn");
  });

  it('a branch left out (a conflict its worker does not resolve) fails the run: exit 1, the report on stderr', async () => {
    const repo = await makeRepo('repo-leftout');
    const wf = exampleCopy('leftout', 'LEFTOUT');
    box.server.on('LEFTOUT: apply the refactoring', (r) => {
      const target = /to `([^`]+)` only/.exec(r.prompt)![1]!;
      if (r.afterTool) return { text: `<result>noted ${target}</result>` };
      const command = `echo "${target} done" >> NOTES.md && git add -A && git commit -qm "note ${target}"`;
      return { toolUse: { name: 'Bash', input: { command } } };
    });
    // The worker asked to resolve the conflict answers without resolving it.
    box.server.on('Raymond is merging the branches of run leftout', { text: 'I cannot.' });
    const r = await raymond(
      [wf, '--input', 'a.txt b.txt', '--workflow-id', 'leftout', '--dangerously-skip-permissions'],
      { cwd: repo, env: box.env({ IS_SANDBOX: '1' }) },
    );
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      /batch refactor incomplete: 2 workers \(0 failed\); merge left a branch out/,
    );
    assert.match(r.stderr, /run leftout failed/);
    assert.equal(
      await git(repo, 'show', 'raymond/leftout/merged:NOTES.md'),
      'notes\na.txt done',
      'the first branch merged, the second left out',
    );
  });

  it("without the worker's grant, the denied commands are reported and counted", async () => {
    const repo = await makeRepo('repo-nogrant');
    const wf = exampleCopy('nogrant', 'NOGRANT', (text) => text.replace(/^tools: .*\n/m, ''));
    box.server.on('NOGRANT: apply the refactoring', (r) => {
      const target = /to `([^`]+)` only/.exec(r.prompt)![1]!;
      if (r.afterTool) return { text: `<result>done with ${target}</result>` };
      return {
        toolUse: {
          name: 'Bash',
          input: {
            command: `sed -i 's/foo/bar/' ${target} && git add -A && git commit -qm "refactor: ${target}"`,
          },
        },
      };
    });
    const r = await raymond([wf, '--input', 'a.txt b.txt', '--workflow-id', 'nogrant', '--json'], {
      cwd: repo,
      env: box.env(),
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /\[main_worker1\] denied: Bash\(sed -i 's\/foo\/bar\/' a\.txt && git add -A && git commit/,
    );
    assert.match(r.stderr, /; 2 tool calls denied;/);
    const out = JSON.parse(r.stdout) as {
      results: Record<string, string>;
      permission_denials: Array<{ agent: string; state: string; tool: string }>;
    };
    assert.deepEqual(out.permission_denials.map((d) => [d.agent, d.state, d.tool]).sort(), [
      ['main_worker1', 'WORKER.md', 'Bash'],
      ['main_worker2', 'WORKER.md', 'Bash'],
    ]);
    assert.match(out.results.main!, /^2 workers \(0 failed\)\./);
  });

  it('worktree="..." outside a git repository is a clear error', async () => {
    const plain = join(box.dir, 'plain');
    mkdirSync(plain);
    writeFileSync(
      join(plain, 'START.sh'),
      '#!/usr/bin/env bash\necho "<fork next=\\"END\\" worktree=\\"x\\">W</fork>"\n',
    );
    writeFileSync(join(plain, 'W.sh'), '#!/usr/bin/env bash\necho "<result>w</result>"\n');
    writeFileSync(join(plain, 'END.sh'), '#!/usr/bin/env bash\necho "<result>e</result>"\n');
    const r = await raymond(['.', '--json'], { cwd: plain });
    assert.equal(r.code, 1);
    assert.match(summary(r).error!, /not inside a git repository: worktree="x" needs one/);
    assert.match(summary(r).error!, /worktree="x"/);
  });
});
