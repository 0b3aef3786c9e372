import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { execa } from 'execa';
import type { WorkflowState } from '../../machines/types.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { CLI, Sandbox, readRunState, sh } from '../helpers/cli.js';

const WORKERS = 10_000;
const box = new Sandbox();
after(() => box.remove());

/** Bytes one worker adds to the log: its id (main_w1 .. main_w10000) padded to 16, and a newline. */
const LINE = 17;

describe('crash safety at 10,000 workers', () => {
  it('a dispatcher of 10,000 script workers killed at random points and resumed ends with every result exactly once', async () => {
    const seed = Number(process.env.CRASH_SEED ?? 20261127);
    const rand = seededRandom(seed);
    const log = join(box.dir, 'ran.log');
    const wf = box.write(
      {
        'START.sh': sh(
          `for i in $(seq 1 ${WORKERS}); do printf '<fork next="END" i="%s">W</fork>' "$i"; done`,
        ),
        // Each run of a worker's step leaves a fixed-width line, so the log's size counts them.
        'W.sh': sh(
          `printf '%-16s\\n' "$RAYMOND_AGENT_ID" >> '${log}'`,
          'echo "<result>$i</result>"',
        ),
        'END.sh': sh('echo "<result>dispatched</result>"'),
      },
      'big',
    );
    const stateFile = join(box.dir, '.raymond/state/big.json');
    const ran = () => (existsSync(log) ? statSync(log).size / LINE : 0);
    // Two kills: each once a random share (10% to 80%) of what is left has run.
    const kills: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const args = existsSync(stateFile)
        ? ['--resume', 'big']
        : [wf, '--workflow-id', 'big', '--max-parallel', '4'];
      const child = execa(process.execPath, [CLI, ...args, '--quiet'], {
        cwd: box.dir,
        reject: false,
        stdin: 'ignore',
      });
      let exited = false;
      void child.then(() => (exited = true));
      if (attempt < 2) {
        const at = ran() + (WORKERS - ran()) * (0.1 + 0.7 * rand());
        while (!exited && ran() < at) await sleep(20);
        if (!exited) {
          child.kill('SIGKILL');
          kills.push(Math.floor(ran()));
        }
        await child;
        continue;
      }
      const done = await child;
      assert.equal(
        done.exitCode,
        0,
        `seed ${seed}: the last resume failed: ${String(done.stderr)}`,
      );
    }
    assert.equal(kills.length, 2, `seed ${seed}: killed at ${kills.join(', ')} workers run`);
    const state = readRunState(stateFile);
    assert.equal(state.status, 'completed');
    const expected: Record<string, string> = { main: 'dispatched' };
    for (let i = 1; i <= WORKERS; i++) expected[`main_w${i}`] = String(i);
    assert.deepEqual(state.results, expected, `seed ${seed}: every result, once, unchanged`);
    assert.deepEqual(state.fork_counters, { main: WORKERS }, 'no worker was forked twice');
    assert.equal(state.agents.length, WORKERS + 1);
    for (const a of state.agents) {
      assert.equal(a.status, 'terminated', a.id);
      assert.equal(a.result, expected[a.id], a.id);
    }
    // Steps run at least once: a worker killed mid-step ran again on resume, and no other did.
    const runs = new Map<string, number>();
    for (const line of readFileSync(log, 'utf8').split('\n'))
      if (line.trim()) runs.set(line.trim(), (runs.get(line.trim()) ?? 0) + 1);
    assert.equal(runs.size, WORKERS, 'every worker ran');
    const again = [...runs.values()].filter((n) => n > 1).length;
    assert.ok(
      again <= 2 * 4,
      `seed ${seed}: ${again} workers ran twice (at most the slots at each kill)`,
    );
    // A finished run is one compact snapshot: no journal, terminated agents without what they never use again.
    assert.ok(!existsSync(stateFile.replace(/\.json$/, '.journal')));
    const raw = JSON.parse(readFileSync(stateFile, 'utf8')) as WorkflowState;
    const worker = raw.agents.find((a) => a.id === 'main_w1')!;
    assert.equal(worker.next_session, undefined);
    assert.equal(worker.result, undefined, 'the result is in results only');
    assert.equal(worker.task_folder, undefined, 'the default task folder is not written');
    assert.ok(!existsSync(join(box.dir, '.raymond/tasks')), 'no task folder was made');
  });
});
