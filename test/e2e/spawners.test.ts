import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { CLI, Sandbox, alive, sh } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

/** Pids of the spawner processes whose parent is `parent`. */
function spawnersOf(parent: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent && readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('spawner.main'))
        out.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

describe('script steps run in spawner processes', () => {
  it('a spawner killed with SIGKILL mid-run takes no run down: its steps run again and every result is there once', async () => {
    const n = 40;
    const wf = box.write(
      {
        'START.sh': sh(
          `for i in $(seq 1 ${n}); do printf '<fork next="END" item="%s">W</fork>' "$i"; done`,
        ),
        // Each run of a worker leaves a line, so reruns show; results come from the state file.
        'W.sh': sh('echo "$item" >> "$LOG"', 'sleep 0.3', 'echo "<result>$item</result>"'),
        'END.sh': sh('echo "<result>dispatched</result>"'),
      },
      'fan',
    );
    const log = `${box.dir}/runs.log`;
    const child = execa(
      process.execPath,
      [CLI, wf, '--workflow-id', 'spawn-kill', '--max-parallel', '8', '--json'],
      { cwd: box.dir, reject: false, stdin: 'ignore', env: { LOG: log } },
    );
    let victims: number[] = [];
    for (let i = 0; i < 200 && victims.length === 0; i++) {
      await sleep(50);
      const lines = (() => {
        try {
          return readFileSync(log, 'utf8').trim().split('\n').length;
        } catch {
          return 0;
        }
      })();
      if (lines >= 5) victims = spawnersOf(child.pid!);
    }
    assert.ok(victims.length > 0, 'found a spawner while workers ran');
    process.kill(victims[0]!, 'SIGKILL');
    const r = await child;
    assert.equal(r.exitCode, 0, String(r.stderr));
    const out = JSON.parse(String(r.stdout)) as { status: string; results: Record<string, string> };
    assert.equal(out.status, 'completed');
    const workers = Object.entries(out.results).filter(([id]) => id !== 'main');
    assert.equal(workers.length, n, 'one result per worker');
    assert.deepEqual(
      workers.map(([, v]) => Number(v)).sort((a, b) => a - b),
      Array.from({ length: n }, (_, i) => i + 1),
      "each worker's own result, exactly once",
    );
    const ran = readFileSync(log, 'utf8').trim().split('\n');
    assert.deepEqual([...new Set(ran)].length, n, 'every worker ran (some twice: at least once)');
    assert.ok(!alive(victims[0]!), 'the killed spawner is gone');
    assert.deepEqual(spawnersOf(child.pid!), [], 'no spawner outlives the run');
  });

  it('scripts die with a SIGKILLed orchestrator: the spawners see their stdin close and kill every group', async () => {
    const wf = box.write(
      {
        'START.sh': sh('echo "<fork next=\\"SLEEP\\">SLEEP</fork>"'),
        'SLEEP.sh': sh('sleep 60 & echo $! >> "$PIDS"', 'wait', 'echo "<result>slept</result>"'),
        'END.sh': sh('echo "<result>x</result>"'),
      },
      'orphans',
    );
    const pids = `${box.dir}/sleep.pids`;
    const child = execa(process.execPath, [CLI, wf, '--workflow-id', 'orphans'], {
      cwd: box.dir,
      reject: false,
      stdin: 'ignore',
      env: { PIDS: pids },
    });
    let sleepers: number[] = [];
    for (let i = 0; i < 200 && sleepers.length < 2; i++) {
      await sleep(50);
      try {
        sleepers = readFileSync(pids, 'utf8').trim().split('\n').filter(Boolean).map(Number);
      } catch {
        // Not yet.
      }
    }
    assert.equal(sleepers.length, 2, 'both sleepers started');
    child.kill('SIGKILL');
    await child;
    for (let i = 0; i < 100 && sleepers.some(alive); i++) await sleep(50);
    assert.deepEqual(sleepers.filter(alive), [], 'no script outlives the orchestrator');
  });
});
