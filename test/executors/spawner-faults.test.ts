import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { execa } from 'execa';
import { RaymondError } from '../../src/errors.js';
import { liveGroupCount } from '../../src/executors/process-registry.js';
import { createSpawnerPool } from '../../src/executors/spawner-pool.js';
import { pidFromFile, waitUntil } from '../helpers/processes.js';
import { alive } from '../helpers/cli.js';

const POOL_OWNER = fileURLToPath(new URL('../fixtures/spawner/pool-owner.ts', import.meta.url));

function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'raymond-spawner-faults-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const lines = (file: string) =>
  existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : [];

test('steps in flight on a spawner killed with SIGKILL run again and complete once each', async (t) => {
  const dir = tempDir(t);
  const log = join(dir, 'log');
  const pool = createSpawnerPool({ size: 2 });
  t.after(() => pool.close());
  // Every attempt logs "ID PID", then waits for the test's go-ahead.
  const script = `echo "$ID $$" >> ${log}; while [ ! -e ${dir}/go ]; do sleep 0.02; done; echo "<result>$ID</result>"`;
  const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
  const runs = ids.map((id) =>
    pool.run({
      file: 'bash',
      args: ['-c', script],
      cwd: dir,
      env: { ID: id },
      signal: new AbortController().signal,
      inactivityMs: 60_000,
    }),
  );
  await waitUntil(
    () => lines(log).length === ids.length && liveGroupCount() >= ids.length,
    'every step to start',
  );
  const victim = pool.stats().spawners[0]!;
  assert.ok(victim.inFlight > 0);
  process.kill(victim.pid!, 'SIGKILL');
  await waitUntil(() => lines(log).length === ids.length + victim.inFlight, 'the reruns to start');
  const attempts = new Map<string, number[]>();
  for (const [id, pid] of lines(log).map((l) => l.split(' ')))
    attempts.set(id!, [...(attempts.get(id!) ?? []), Number(pid)]);
  const rerun = [...attempts].filter(([, pids]) => pids.length === 2);
  assert.equal(rerun.length, victim.inFlight);
  // The first attempts died with their spawner's groups: none runs next to its rerun.
  for (const [, [first]] of rerun)
    await waitUntil(() => !alive(first!), `first attempt ${first} to be killed`);
  writeFileSync(join(dir, 'go'), '');
  const results = await Promise.all(runs);
  assert.deepEqual(
    results.map((r) => [r.exitCode, r.stdout]),
    ids.map((id) => [0, `<result>${id}</result>\n`]),
  );
  assert.deepEqual([pool.stats().deaths, pool.stats().reruns], [1, victim.inFlight]);
});

test('spawners that cannot start end in a clear error, not in a loop', async (t) => {
  const pool = createSpawnerPool({ size: 1, nodeFlags: ['--raymond-no-such-node-flag'] });
  t.after(() => pool.close());
  const run = () =>
    pool.run({
      file: 'true',
      args: [],
      cwd: tmpdir(),
      env: {},
      signal: new AbortController().signal,
      inactivityMs: 1000,
    });
  await assert.rejects(
    run(),
    (err) =>
      err instanceof RaymondError &&
      err.code === 'ERR_SCRIPT_START' &&
      /spawner process/.test(err.message),
  );
  assert.equal(pool.stats().deaths, 3);
  // Once given up, a later step costs one more attempt, not another round.
  await assert.rejects(run(), RaymondError);
  assert.equal(pool.stats().deaths, 4);
});

test('close() kills the steps still running, resolves them as aborted and ends the spawners', async (t) => {
  const dir = tempDir(t);
  const pool = createSpawnerPool({ size: 1 });
  const running = pool.run({
    file: 'bash',
    args: ['-c', `sleep 300 & echo $! > ${dir}/child.pid; wait`],
    cwd: dir,
    env: {},
    signal: new AbortController().signal,
    inactivityMs: 600_000,
  });
  const child = await pidFromFile(join(dir, 'child.pid'));
  const spawner = pool.stats().spawners[0]!.pid!;
  await pool.close();
  assert.equal((await running).aborted, true);
  await waitUntil(() => !alive(child) && !alive(spawner), 'the step and the spawner to be gone');
  await assert.rejects(
    pool.run({
      file: 'true',
      args: [],
      cwd: dir,
      env: {},
      signal: new AbortController().signal,
      inactivityMs: 1000,
    }),
    RaymondError,
  );
});

test('a SIGKILLed orchestrator leaves no spawner and no script running', async (t) => {
  const dir = tempDir(t);
  const owner = execa(process.execPath, ['--import', 'tsx', POOL_OWNER, dir], {
    reject: false,
    stdin: 'ignore',
  });
  const script = await pidFromFile(join(dir, 'script.pid'));
  const spawners = JSON.parse(readFileSync(join(dir, 'spawners.json'), 'utf8')) as number[];
  assert.equal(spawners.length, 1);
  assert.ok(alive(script) && alive(spawners[0]!));
  owner.kill('SIGKILL');
  await owner;
  await waitUntil(
    () => !alive(script) && !spawners.some(alive),
    'the script and the spawner to be gone',
  );
});
