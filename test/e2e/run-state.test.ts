import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { join } from 'node:path';
import { execa } from 'execa';
import { Sandbox, sh, summary } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

describe('the state file and scheduling', () => {
  it('keeps the run after completion with status, options and every result', async () => {
    const wf = box.write(
      {
        'START.sh': sh('echo "<fork next=\\"END\\" n=\\"1\\">W</fork>"'),
        'W.sh': sh('echo "<result>w$n</result>"'),
        'END.sh': sh('echo "<result>end</result>"'),
      },
      'keep',
    );
    const r = await box.run([
      wf,
      '--json',
      '--workflow-id',
      'keep-1',
      '--state-dir',
      'custom/states',
      '--max-parallel',
      '3',
      '--timeout',
      '30',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const state = box.state('keep-1', 'custom/states');
    assert.equal(state.version, 1);
    assert.equal(state.workflow_id, 'keep-1');
    assert.equal(state.status, 'completed');
    assert.deepEqual(state.options, {
      timeout_seconds: 30,
      max_parallel: 3,
      budget_usd: 10,
      model: null,
      effort: null,
      dangerously_skip_permissions: false,
      worktrees: 'keep-ignored',
      task_folder_pattern: '.raymond/tasks/{workflow_id}/{agent_id}',
      on_ask: 'reject',
    });
    assert.deepEqual(state.results, { main: 'end', main_w1: 'w1' });
    assert.deepEqual(
      { ...state.scope, fingerprints: Object.keys(state.scope.fingerprints!) },
      { kind: 'dir', path: wf, entry: 'START.sh', fingerprints: ['END.sh', 'START.sh', 'W.sh'] },
    );
    assert.match(state.scope.fingerprints!['W.sh']!, /^[0-9a-f]{64}$/);
    assert.ok(Date.parse(state.started_at) <= Date.parse(state.updated_at));
    assert.deepEqual(summary(r).results, state.results);
  });

  it('never runs more than --max-parallel scripts at once', async () => {
    const workers = Array.from(
      { length: 8 },
      (_, i) => `<fork next=\\"END\\" i=\\"${i}\\">W</fork>`,
    ).join('');
    const wf = box.write(
      {
        'START.sh': sh(`echo "${workers}"`),
        'W.sh': sh(
          'echo "s $(date +%s%N)" >> par.log',
          'sleep 0.3',
          'echo "e $(date +%s%N)" >> par.log',
          'echo "<result>$i</result>"',
        ),
        'END.sh': sh('echo "<result>end</result>"'),
      },
      'par',
    );
    const r = await box.run([wf, '--json', '--max-parallel', '2']);
    assert.equal(r.code, 0, r.stderr);
    const events = readFileSync(join(box.dir, 'par.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => {
        const [k, t] = l.split(' ');
        return { k: k!, t: BigInt(t!) };
      })
      .sort((a, b) => (a.t < b.t ? -1 : 1));
    let running = 0;
    let peak = 0;
    for (const e of events) {
      running += e.k === 's' ? 1 : -1;
      peak = Math.max(peak, running);
    }
    assert.equal(events.length, 16);
    assert.equal(peak, 2, 'two workers overlapped, never three');
  });

  it('prints only the main result on stdout without --json, and nothing with --quiet on stderr', async () => {
    const wf = box.write({ 'START.sh': sh('echo "<result>multi', 'line</result>"') }, 'plain');
    const r = await box.run([wf, '--quiet']);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, 'multi\nline\n');
    assert.equal(r.stderr, '');
  });

  it('keeps .raymond/ out of git: its .gitignore ignores everything there but config.toml', async () => {
    const own = new Sandbox();
    try {
      await execa('git', ['init', '-q'], { cwd: own.dir });
      const wf = own.write({ 'START.sh': sh('echo "<result>x</result>"') }, 'wf');
      const untracked = async () =>
        (
          await execa('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: own.dir })
        ).stdout
          .split('\n')
          .filter((l) => l.includes('.raymond'));
      assert.equal((await own.run([wf])).code, 0);
      assert.match(own.read('.raymond/.gitignore'), /^\*$/m);
      assert.deepEqual(await untracked(), [], 'state files and debug logs are not offered to git');
      assert.equal((await own.run(['--init-config'])).code, 0);
      assert.deepEqual(
        await untracked(),
        ['?? .raymond/config.toml'],
        'the config file is meant to be committed',
      );
    } finally {
      own.remove();
    }
  });
});
