import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { execa } from 'execa';
import type { WorkflowState } from '../../machines/types.js';
import { CLI, Sandbox, raymond, sh, summary } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

/**
 * START calls itself until its input reaches `depth`, the deepest frame
 * answers 0, and each BACK adds one on the way up: the main result is the
 * number of frames that returned. At `pause` (once) START leaves a marker
 * file and sleeps, so that a test can kill Raymond there.
 */
function recursion(name: string, depth: number, pause = -1): string {
  return box.write(
    {
      'START.sh': sh(
        'n=${RAYMOND_INPUT:-0}',
        `if [ "$n" -eq ${pause} ] && [ ! -e ${name}.halfway ]; then touch ${name}.halfway; sleep 120; fi`,
        `if [ "$n" -lt ${depth} ]; then echo "<call return=\\"BACK\\" input=\\"$((n+1))\\">START</call>"; else echo "<result>0</result>"; fi`,
      ),
      'BACK.sh': sh('echo "<result>$((RAYMOND_INPUT+1))</result>"'),
    },
    name,
  );
}

describe('deep return stacks', () => {
  it('a 2,000-deep <call> recursion killed with SIGKILL halfway resumes and completes, every journal line and write staying small', async () => {
    const wf = recursion('rec', 2000, 1000);
    const run = execa(process.execPath, [CLI, wf, '--workflow-id', 'rec', '--quiet'], {
      cwd: box.dir,
      reject: false,
      stdin: 'ignore',
    });
    for (
      let i = 0;
      i < 2400 && !existsSync(join(box.dir, 'rec.halfway')) && run.exitCode === null;
      i++
    )
      await sleep(50);
    const reached = existsSync(join(box.dir, 'rec.halfway'));
    run.kill('SIGKILL');
    const killed = await run;
    assert.ok(reached, `the run reached depth 1,000: ${String(killed.stderr)}`);

    const status = await box.run(['--status', 'rec']);
    assert.match(status.stdout, /main {2}active {2}START\.sh {2}depth 1000 /);
    // A journal line holds what a step changed: one frame pushed or popped, not the stack.
    const journal = readFileSync(join(box.dir, '.raymond/state/rec.journal'), 'utf8')
      .split('\n')
      .filter(Boolean);
    assert.ok(journal.length >= 900, `${journal.length} journal lines`);
    const longest = Math.max(...journal.map((l) => Buffer.byteLength(l)));
    assert.ok(longest < 1000, `the longest journal line is ${longest} bytes at depth 1,000`);

    const resumed = await raymond(['--resume', 'rec', '--json', '--quiet', '--verbose'], {
      cwd: box.dir,
      timeoutMs: 300_000,
    });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(
      summary(resumed).results,
      { main: '2000' },
      'every frame returned exactly once',
    );
    const writes = /(\d+) writes \((\d+) snapshots\), (\d+) bytes/.exec(resumed.stderr);
    assert.ok(writes, resumed.stderr);
    const [count, bytes] = [Number(writes[1]), Number(writes[3])];
    assert.ok(count >= 3000, `${count} writes for 3,000 steps`);
    // The stack as a whole is ~40 bytes a frame: written on every step it would average 40 KB here.
    assert.ok(bytes / count < 1500, `${Math.round(bytes / count)} bytes per write on average`);
    const state = box.state('rec');
    assert.equal(state.status, 'completed');
    assert.deepEqual(state.agents[0]!.stack, []);
  });

  it('a <call> past 10,000 frames fails the agent with one line naming the state file and the depth; a state file 9,999 deep loads', async () => {
    const wf = recursion('toodeep', 100_000);
    const now = new Date().toISOString();
    // A snapshot as an earlier run would have left it, 9,999 frames deep.
    const state: WorkflowState = {
      version: 1,
      workflow_id: 'toodeep',
      status: 'running',
      scope: { kind: 'dir', path: wf, entry: 'START.sh' },
      started_at: now,
      updated_at: now,
      options: {
        timeout_seconds: 60,
        max_parallel: 2,
        budget_usd: 0,
        model: null,
        effort: null,
        dangerously_skip_permissions: false,
      },
      total_cost_usd: 0,
      fork_counters: {},
      session_costs: {},
      agents: [
        {
          id: 'main',
          state: 'START.sh',
          session: null,
          branchFrom: null,
          stack: Array.from({ length: 9999 }, () => ({ state: 'BACK.sh', session: null })),
          cwd: box.dir,
          attributes: {},
          input: '9999',
          status: 'active',
        },
      ],
      results: {},
    };
    mkdirSync(join(box.dir, '.raymond/state'), { recursive: true });
    writeFileSync(join(box.dir, '.raymond/state/toodeep.json'), JSON.stringify(state, null, 1));

    const r = await box.run(['--resume', 'toodeep']);
    assert.equal(r.code, 1, r.stderr);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('raymond:'));
    assert.deepEqual(errors, [
      `raymond: ${join(wf, 'START.sh')}: <call> would make the return stack 10001 frames deep; at most 10000 are allowed (a recursion that never ends?)`,
    ]);
    assert.doesNotMatch(r.stderr, /Maximum call stack|\n\s+at /);
    const after = box.state('toodeep');
    assert.equal(after.status, 'failed');
    assert.equal(after.agents[0]!.status, 'failed');
    assert.equal(after.agents[0]!.stack.length, 10_000, 'the call to frame 10,000 was allowed');
  });
});
