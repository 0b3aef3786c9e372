import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { execa } from 'execa';
import { summary, sh } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';
import { queueWorld, TEST_SECRET, type WorkerProcess } from '../../helpers/queue-workers.js';

const box = new ClaudeSandbox();
const env = { RAYMOND_QUEUE_SECRET: TEST_SECRET };
const git = async (cwd: string, ...args: string[]) =>
  (await execa('git', args, { cwd })).stdout.trim();

const world = queueWorld(box, (home) => box.env({ HOME: home }));

/** Whether a worker's HOME holds a Claude Code transcript of this session. */
function holds(w: WorkerProcess, session: string): boolean {
  const projects = join(w.home, '.claude', 'projects');
  return (
    existsSync(projects) &&
    readdirSync(projects).some((p) => existsSync(join(projects, p, `${session}.jsonl`)))
  );
}

describe('--queue: Claude Code turns on worker processes (real claude, scripted API)', () => {
  it("a state's grant holds on a worker, and its denials come back to the run", async (t) => {
    if (!world.redis)
      return t.skip(
        'redis-server is not installed (apt-get install redis-server): queue tests skipped',
      );
    const worker = await world.workers.start('grant-a');
    t.after(() => worker.kill());
    box.server.on('QGRANT', (r) =>
      r.afterTool
        ? { text: '<result>looked</result>' }
        : { toolUse: { name: 'Bash', input: { command: 'touch queued-blocked.txt' } } },
    );
    const wf = box.write(
      {
        'START.md':
          '---\ntools: [Read]\nappend_system_prompt: QUEUE-SYSTEM-MARKER\n---\nQGRANT: look only',
      },
      'qgrant',
    );
    const r = await box.run(
      [
        wf,
        '--queue',
        world.redis.url,
        '--json',
        '--workflow-id',
        'qgrant',
        '--dangerously-skip-permissions',
      ],
      { ...env, IS_SANDBOX: '1' },
    );
    assert.equal(r.code, 0, r.stderr);
    const [q] = box.server.requestsFor('QGRANT');
    assert.ok(q!.tools.includes('Read') && !q!.tools.includes('Bash'), q!.tools.join(', '));
    assert.match(q!.system, /QUEUE-SYSTEM-MARKER/);
    assert.match(r.stderr, /\[main\] denied: Bash\(touch queued-blocked\.txt\)/);
    assert.deepEqual(
      (
        JSON.parse(r.stdout) as { permission_denials: Array<{ agent: string; tool: string }> }
      ).permission_denials.map((d) => [d.agent, d.tool]),
      [['main', 'Bash']],
    );
  });

  it('a <goto> chain whose session holder is killed between turns goes on elsewhere with the conversation', async (t) => {
    if (!world.redis)
      return t.skip(
        'redis-server is not installed (apt-get install redis-server): queue tests skipped',
      );
    const go = join(box.dir, 'chain-go');
    const ws = await Promise.all(['a', 'b'].map((n) => world.workers.start(`chain-${n}`)));
    const s = box.server;
    s.on('CHAIN-ONE', { text: 'chain-marker-42 <goto>WAIT.sh</goto>' });
    s.on('CHAIN-TWO', (r) => ({
      text: `<result>${r.transcript.includes('chain-marker-42') ? 'remembered' : 'forgot'}</result>`,
    }));
    const wf = box.write(
      {
        'START.md': 'CHAIN-ONE: say the marker',
        'WAIT.sh': sh(`while [ ! -e ${go} ]; do sleep 0.1; done`, 'echo "<goto>TWO.md</goto>"'),
        'TWO.md': 'CHAIN-TWO: what was the marker?',
      },
      'chain',
    );
    const run = box.run(
      [
        wf,
        '--queue',
        world.redis.url,
        '--json',
        '--workflow-id',
        'chain',
        '--dangerously-skip-permissions',
      ],
      env,
    );
    // The first turn ran: its session is on one worker, and in the state file.
    let session: string | null = null;
    let holder: WorkerProcess | undefined;
    for (let i = 0; i < 400 && !holder; i++) {
      await new Promise((r) => setTimeout(r, 50));
      session = existsSync(join(box.dir, '.raymond/state/chain.json'))
        ? box.state('chain').agents[0]!.session
        : null;
      holder = session ? ws.find((w) => holds(w, session!)) : undefined;
    }
    assert.ok(holder, "a worker holds the first turn's session");
    await holder.kill();
    writeFileSync(go, '');
    const r = await run;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'remembered');
    const survivor = ws.find((w) => w !== holder)!;
    assert.ok(
      holds(survivor, session!),
      'the next turn ran on the other worker, in the same session',
    );
    const [two] = s.requestsFor('CHAIN-TWO');
    assert.ok(two!.messageCount > 2, `resumed (${two!.messageCount} messages)`);
    assert.ok(
      existsSync(join(box.dir, '.raymond/transcripts/chain', `${session}.jsonl`)),
      'the coordinator kept the transcript',
    );
    await survivor.kill();
  });

  it('the turns of one session go to the worker that holds it while it lives', async (t) => {
    if (!world.redis) return t.skip('redis-server is not installed: queue tests skipped');
    const ws = await Promise.all(['a', 'b', 'c'].map((n) => world.workers.start(`stay-${n}`)));
    const s = box.server;
    for (const n of [1, 2, 3])
      s.on(`STAY-${n}`, { text: n < 3 ? `<goto>S${n + 1}</goto>` : '<result>stayed</result>' });
    const wf = box.write({ 'START.md': 'STAY-1', 'S2.md': 'STAY-2', 'S3.md': 'STAY-3' }, 'stay');
    const r = await box.run(
      [
        wf,
        '--queue',
        world.redis.url,
        '--json',
        '--workflow-id',
        'stay',
        '--dangerously-skip-permissions',
      ],
      env,
    );
    assert.equal(r.code, 0, r.stderr);
    const session = box.state('stay').agents[0]!.session!;
    assert.deepEqual(ws.filter((w) => holds(w, session)).length, 1, 'one worker ran every turn');
    assert.equal(
      s.requestsFor('STAY-3')[0]!.messageCount > s.requestsFor('STAY-2')[0]!.messageCount,
      true,
    );
    for (const w of ws) await w.kill();
  });

  it("batch refactor over two workers: each agent's worktree is made on its worker and its branch pushed to the remote", async (t) => {
    if (!world.redis) return t.skip('redis-server is not installed: queue tests skipped');
    const bare = join(box.dir, 'origin.git');
    const seed = join(box.dir, 'seed');
    mkdirSync(seed);
    await git(box.dir, 'init', '-q', '--bare', '-b', 'main', bare);
    await git(seed, 'init', '-q', '-b', 'main');
    for (const [k, v] of [
      ['user.email', 'test@example.com'],
      ['user.name', 'Test'],
    ])
      await git(seed, 'config', k!, v!);
    writeFileSync(join(seed, 'a.txt'), 'foo one\n');
    writeFileSync(join(seed, 'b.txt'), 'foo two\n');
    writeFileSync(join(seed, 'c.txt'), 'nothing\n');
    writeFileSync(join(seed, '.gitignore'), '.raymond/\n');
    await git(seed, 'add', '-A');
    await git(seed, 'commit', '-qm', 'initial');
    await git(seed, 'push', '-q', bare, 'main');
    const clone = async (name: string) => {
      const dir = join(box.dir, name);
      await git(box.dir, 'clone', '-q', bare, dir);
      for (const [k, v] of [
        ['user.email', 'test@example.com'],
        ['user.name', 'Test'],
      ])
        await git(dir, 'config', k!, v!);
      return dir;
    };
    const coord = await clone('coord');
    const ws = [
      await world.workers.start('git-a', { workdir: await clone('wa'), concurrency: 1 }),
      await world.workers.start('git-b', { workdir: await clone('wb'), concurrency: 1 }),
    ];
    box.server.on('REFACTOR', (r) => {
      const target = /target=(\S+)/.exec(r.prompt)![1]!;
      if (r.afterTool) return { text: `done <result>${target}</result>` };
      const command =
        target === 'c.txt'
          ? 'true'
          : `sed -i 's/foo/bar/' ${target} && git add -A && git commit -qm "refactor: ${target}"`;
      return { toolUse: { name: 'Bash', input: { command, description: `refactor ${target}` } } };
    });
    writeFileSync(
      join(coord, 'START.sh'),
      sh(
        'for t in a.txt b.txt c.txt; do echo "<fork next=\\"DONE.sh\\" worktree=\\"$t\\" target=\\"$t\\">WORK.md</fork>"; done',
        'echo "<goto>DONE.sh</goto>"',
      ),
    );
    writeFileSync(join(coord, 'WORK.md'), 'REFACTOR target={{target}} in {{worktree}}');
    writeFileSync(join(coord, 'DONE.sh'), sh('echo "<result>dispatched</result>"'));
    const { raymond } = await import('../../helpers/cli.js');
    const r = await raymond(
      [
        coord,
        '--queue',
        world.redis.url,
        '--json',
        '--workflow-id',
        'qbatch',
        '--dangerously-skip-permissions',
      ],
      { cwd: coord, env: box.env({ ...env, IS_SANDBOX: '1' }) },
    );
    assert.equal(r.code, 0, r.stderr);
    const out = summary(r) as ReturnType<typeof summary> & {
      worktrees: Array<{
        agent: string;
        branch: string;
        commits: number;
        removed: boolean;
        pushed?: string;
      }>;
    };
    const byAgent = Object.fromEntries(out.worktrees.map((w) => [w.agent, w]));
    assert.deepEqual([byAgent.main_work1!.commits, byAgent.main_work1!.pushed], [1, 'origin']);
    assert.equal(byAgent.main_work3!.removed, true);
    assert.equal(await git(bare, 'show', 'raymond/qbatch/main_work1:a.txt'), 'bar one');
    assert.equal(await git(bare, 'show', 'raymond/qbatch/main_work2:b.txt'), 'bar two');
    assert.equal(
      await git(bare, 'branch', '--list', 'raymond/qbatch/main_work3'),
      '',
      'an untouched branch is not pushed',
    );
    // Each worker made worktrees in its own checkout, none on the coordinator.
    assert.equal(existsSync(join(coord, '.raymond/worktrees/qbatch')), false);
    const madeOn = ws.filter(
      (w) =>
        existsSync(join(w.workdir, '.raymond/worktrees/qbatch')) ||
        box.server.requestsFor('REFACTOR').some((q) => q.cwd?.startsWith(w.workdir)),
    );
    assert.equal(madeOn.length, 2, 'both workers ran agents');
    assert.match(r.stderr, /main_work1: raymond\/qbatch\/main_work1: 1 commit.*pushed to origin/);
    const list = await raymond(['worktrees', 'qbatch'], { cwd: coord });
    assert.match(
      list.stdout,
      /^main_work1 {2}raymond\/qbatch\/main_work1 {2}on origin \(pushed by a worker; git fetch origin raymond\/qbatch\/main_work1:raymond\/qbatch\/main_work1\)$/m,
    );
    for (const w of ws) await w.kill();
  });
});
