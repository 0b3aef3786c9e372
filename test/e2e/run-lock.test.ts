import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
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
    'STEP.sh': sh(
      'echo "$RAYMOND_WORKFLOW_ID $PPID" >> "$LOG"',
      'sleep 0.3',
      'echo "<result>once</result>"',
    ),
  },
  'wf',
);

let seeded: Promise<Record<string, unknown>> | undefined;

/** The state file of a run stopped before STEP.sh, made once: copies of it under other ids are runs to resume. */
function seedRun(): Promise<Record<string, unknown>> {
  seeded ??= (async () => {
    assert.equal((await box.run([wf, '--workflow-id', 'seed'], { LOG })).code, 1);
    writeFileSync(`${LOG}.go`, '');
    const dir = join(box.dir, '.raymond/state');
    assert.equal(existsSync(join(dir, 'seed.journal')), false, 'the snapshot is the whole run');
    return JSON.parse(readFileSync(join(dir, 'seed.json'), 'utf8')) as Record<string, unknown>;
  })();
  return seeded;
}

describe('one orchestrator per run, through the CLI', () => {
  it('10 rounds of four --resume at once on a dead owner’s lock: STEP.sh runs once per round', async () => {
    const env = { LOG };
    const dir = join(box.dir, '.raymond/state');
    const seed = await seedRun();
    for (let round = 0; round < 10; round++) {
      const id = `round${round}`;
      writeFileSync(join(dir, `${id}.json`), JSON.stringify({ ...seed, workflow_id: id }));
      // What a crashed orchestrator leaves: a lock naming a process that is gone.
      writeFileSync(
        join(dir, `${id}.lock`),
        JSON.stringify({
          pid: spawnSync('true').pid,
          host: hostname(),
          started_at: '2026-01-01T00:00:00.000Z',
        }),
      );
      // Started one after the other, the four take the lock in the same millisecond.
      const race = {
        ...env,
        NODE_OPTIONS: `--import ${BARRIER}`,
        RAYMOND_TEST_LOCK_AT: String(Date.now() + 2000),
      };
      const runs = await Promise.all(
        [0, 1, 2, 3].map(() => box.run(['--resume', id, '--json'], race)),
      );
      const ran = readFileSync(LOG, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith(`${id} `));
      assert.equal(
        ran.length,
        1,
        `round ${round}: STEP.sh ran ${ran.length} times\n${runs.map((r) => r.stderr).join('')}`,
      );
      assert.deepEqual(
        runs.map((r) => r.code).sort(),
        [0, 64, 64, 64],
        runs.map((r) => r.stderr).join(''),
      );
      for (const r of runs.filter((x) => x.code === 64)) {
        assert.match(
          r.stderr,
          new RegExp(
            `^raymond: .*(run ${id} is in use by process \\d+|run ${id} has completed; nothing to resume)`,
          ),
          r.stderr,
        );
      }
      assert.equal(box.state(id).results.main, 'once');
    }
  });

  it('two fresh starts of one id, the second taking the lock only once the first ended: the workflow runs once', async () => {
    const once = box.write(
      {
        'START.sh': sh(
          'echo "$RAYMOND_WORKFLOW_ID $PPID" >> "$LOG"',
          'echo "<result>once</result>"',
        ),
      },
      'fresh',
    );
    const id = 'fresh';
    const go = join(box.dir, 'fresh.go');
    // The second looks for an existing run first, then waits at its lock until the first ended.
    const second = box.run([once, '--workflow-id', id], {
      LOG,
      NODE_OPTIONS: `--import ${BARRIER}`,
      RAYMOND_TEST_LOCK_GO: go,
    });
    for (let i = 0; i < 600 && !existsSync(`${go}.waiting`); i++) await sleep(50);
    const first = await box.run([once, '--workflow-id', id], { LOG });
    assert.equal(first.code, 0, first.stderr);
    writeFileSync(go, '');
    const late = await second;
    assert.equal(late.code, 64, late.stderr);
    assert.match(
      late.stderr,
      /^raymond: \S+fresh\.json: a run with id "fresh" already exists; choose another --workflow-id$/m,
    );
    assert.equal(
      readFileSync(LOG, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith(`${id} `)).length,
      1,
      'START.sh ran once',
    );
  });

  it('a --resume that waits for the lock while another resume finishes the run reads the run as it was left, and runs nothing', async () => {
    const dir = join(box.dir, '.raymond/state');
    const seed = await seedRun();
    const id = 'waiter';
    writeFileSync(join(dir, `${id}.json`), JSON.stringify({ ...seed, workflow_id: id }));
    const go = join(box.dir, 'waiter.go');
    const second = box.run(['--resume', id, '--json'], {
      LOG,
      NODE_OPTIONS: `--import ${BARRIER}`,
      RAYMOND_TEST_LOCK_GO: go,
    });
    for (let i = 0; i < 600 && !existsSync(`${go}.waiting`); i++) await sleep(50);
    const first = await box.run(['--resume', id, '--json'], { LOG });
    assert.equal(first.code, 0, first.stderr);
    const finished = readFileSync(join(dir, `${id}.json`), 'utf8');
    writeFileSync(go, '');
    const late = await second;
    assert.equal(late.code, 64, late.stderr);
    assert.match(
      late.stderr,
      /^raymond: \S+waiter\.json: run waiter has completed; nothing to resume$/m,
    );
    assert.equal(
      readFileSync(LOG, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith(`${id} `)).length,
      1,
      'STEP.sh ran once',
    );
    assert.equal(
      readFileSync(join(dir, `${id}.json`), 'utf8'),
      finished,
      'the finished run is left as it was',
    );
  });
});
