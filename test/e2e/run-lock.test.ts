import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { Sandbox, sh } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

const BARRIER = fileURLToPath(new URL('../helpers/lock-barrier.mjs', import.meta.url));
const LOG = join(box.dir, 'ran.log');

/** A run that stops failed before STEP.sh; once `go` exists, a resume runs STEP.sh, which logs each run of it. */
const wf = box.write(
  {
    'START.sh': sh('[ -f "$LOG.go" ] || exit 9', 'echo "<goto>STEP</goto>"'),
    // Long enough that a second orchestrator of the same run would be running it at the same time.
    'STEP.sh': sh('echo "$RAYMOND_WORKFLOW_ID $PPID" >> "$LOG"', 'sleep 0.3', 'echo "<result>once</result>"'),
  },
  'wf',
);

describe('one orchestrator per run, through the CLI', () => {
  it('10 rounds of four --resume at once on a dead owner’s lock: STEP.sh runs once per round', async () => {
    const env = { LOG };
    assert.equal((await box.run([wf, '--workflow-id', 'seed'], env)).code, 1);
    writeFileSync(`${LOG}.go`, '');
    const dir = join(box.dir, '.raymond/state');
    assert.equal(existsSync(join(dir, 'seed.journal')), false, 'the snapshot is the whole run');
    const seed = JSON.parse(readFileSync(join(dir, 'seed.json'), 'utf8')) as { workflow_id: string };
    for (let round = 0; round < 10; round++) {
      const id = `round${round}`;
      writeFileSync(join(dir, `${id}.json`), JSON.stringify({ ...seed, workflow_id: id }));
      // What a crashed orchestrator leaves: a lock naming a process that is gone.
      writeFileSync(join(dir, `${id}.lock`), JSON.stringify({ pid: spawnSync('true').pid, host: hostname(), started_at: '2026-01-01T00:00:00.000Z' }));
      // Started one after the other, the four take the lock in the same millisecond.
      const race = { ...env, NODE_OPTIONS: `--import ${BARRIER}`, RAYMOND_TEST_LOCK_AT: String(Date.now() + 2000) };
      const runs = await Promise.all([0, 1, 2, 3].map(() => box.run(['--resume', id, '--json'], race)));
      const ran = readFileSync(LOG, 'utf8').split('\n').filter((l) => l.startsWith(`${id} `));
      assert.equal(ran.length, 1, `round ${round}: STEP.sh ran ${ran.length} times\n${runs.map((r) => r.stderr).join('')}`);
      assert.deepEqual(runs.map((r) => r.code).sort(), [0, 64, 64, 64], runs.map((r) => r.stderr).join(''));
      for (const r of runs.filter((x) => x.code === 64)) {
        assert.match(r.stderr, new RegExp(`^raymond: .*(run ${id} is in use by process \\d+|run ${id} has completed; nothing to resume)`), r.stderr);
      }
      assert.equal(box.state(id).results.main, 'once');
    }
  });
});
