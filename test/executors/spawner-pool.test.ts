import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createSpawnerPool, type SpawnRequest } from '../../src/executors/spawner-pool.js';
import { killQuietly, pidFromFile, waitUntil } from '../helpers/processes.js';
import { alive } from '../helpers/cli.js';

// Spawners take the environment as it is when they start; requests carry only changes.
process.env.RAYMOND_SPAWNER_TEST_INHERITED = 'inherited';
const pool = createSpawnerPool({ size: 2 });
const dir = mkdtempSync(join(tmpdir(), 'raymond-spawner-'));
after(async () => {
  await pool.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs a bash snippet with defaults a test may override. */
function bash(script: string, more: Partial<SpawnRequest> = {}) {
  return pool.run({
    file: 'bash',
    args: ['-c', script],
    cwd: dir,
    env: {},
    signal: new AbortController().signal,
    inactivityMs: 30_000,
    ...more,
  });
}

test('reports the exit code, the whole stdout and the last 4 KB of stderr', async () => {
  const r = await bash('echo out; for i in $(seq 1 2000); do echo "line $i" >&2; done; exit 7');
  assert.equal(r.exitCode, 7);
  assert.equal(r.signal, null);
  assert.equal(r.stdout, 'out\n');
  assert.ok(r.stderrTail.endsWith('line 1999\nline 2000\n'));
  assert.ok(r.stderrTail.length <= 4096 && !r.stderrTail.includes('line 1\n'));
  assert.deepEqual([r.timedOut, r.aborted, r.droppedBytes, r.leftRunning], [false, false, 0, []]);
});

test('reports a script killed by a signal, and a program that cannot start', async () => {
  const killed = await bash('kill -KILL $$');
  assert.deepEqual([killed.exitCode, killed.signal], [null, 'SIGKILL']);
  const missing = await pool.run({
    file: 'raymond-no-such-program',
    args: [],
    cwd: dir,
    env: {},
    signal: new AbortController().signal,
    inactivityMs: 1000,
  });
  assert.match(missing.spawnError ?? '', /ENOENT/);
  assert.equal(missing.exitCode, null);
});

test('applies the environment delta, unsetting null values, over the inherited environment', async () => {
  const r = await bash('echo "${FOO-unset} ${HOME-unset} $RAYMOND_SPAWNER_TEST_INHERITED"', {
    env: { FOO: 'bar', HOME: undefined },
  });
  assert.equal(r.stdout, 'bar unset inherited\n');
});

test('runs in the requested working directory', async () => {
  const r = await bash('pwd');
  assert.equal(r.stdout, `${realpathSync(dir)}\n`);
});

test('decodes UTF-8 split across chunks, and streams it when asked', async () => {
  const chunks: string[] = [];
  const r = await bash("for i in $(seq 1 100000); do printf '€'; done", {
    onStdout: (t) => chunks.push(t),
  });
  assert.equal(r.stdout, '€'.repeat(100000));
  assert.equal(chunks.join(''), r.stdout);
  assert.ok(chunks.length > 1);
});

test('a grandchild in the group is killed when the script exits', async () => {
  const r = await bash(`sleep 300 & echo $! > ${dir}/grandchild.pid; echo done`);
  assert.equal(r.exitCode, 0);
  const pid = await pidFromFile(`${dir}/grandchild.pid`);
  await waitUntil(() => !alive(pid), 'the grandchild to be killed');
});

test('a background child holding stdout does not turn a success into a timeout', async () => {
  const r = await bash(`(sleep 313 & echo $! > ${dir}/bg.pid); echo "<result>ok</result>"`, {
    inactivityMs: 3000,
  });
  assert.deepEqual([r.exitCode, r.timedOut, r.stdout], [0, false, '<result>ok</result>\n']);
  const pid = await pidFromFile(`${dir}/bg.pid`);
  await waitUntil(() => !alive(pid), 'the background child to be killed');
});

test(
  'an escapee in its own session ends the step and is reported',
  { skip: process.platform !== 'linux' },
  async (t) => {
    const pidFile = `${dir}/escapee.pid`;
    // The script waits until the escapee has left the group, or the group kill would catch it.
    const script = `setsid bash -c 'echo $$ > ${pidFile}; exec sleep 300' & while [ ! -s ${pidFile} ]; do sleep 0.01; done; echo bye; exit 4`;
    const r = await bash(script, { inactivityMs: 3000 });
    const pid = Number(readFileSync(pidFile, 'utf8'));
    t.after(() => killQuietly(pid));
    assert.deepEqual([r.exitCode, r.timedOut, r.stdout], [4, false, 'bye\n']);
    assert.deepEqual(r.leftRunning, [pid]);
    assert.ok(alive(pid));
  },
);

test('inactivity stops the whole group with SIGTERM', async () => {
  const r = await bash(`echo started; sleep 300 & echo $! > ${dir}/idle.pid; wait`, {
    inactivityMs: 300,
  });
  assert.deepEqual(
    [r.timedOut, r.exitCode, r.signal, r.stdout],
    [true, null, 'SIGTERM', 'started\n'],
  );
  const pid = await pidFromFile(`${dir}/idle.pid`);
  await waitUntil(() => !alive(pid), 'the sleeping child to be killed');
});

test('a --timeout beyond the range of Node timers does not fire at once', async () => {
  const r = await bash('sleep 0.3; echo ok', { inactivityMs: 2_147_484 * 1000 });
  assert.deepEqual([r.timedOut, r.exitCode, r.stdout], [false, 0, 'ok\n']);
});

test('abort kills the group and resolves as aborted', async () => {
  const controller = new AbortController();
  const running = bash(`sleep 300 & echo $! > ${dir}/abort.pid; wait`, {
    signal: controller.signal,
  });
  const pid = await pidFromFile(`${dir}/abort.pid`);
  controller.abort();
  const r = await running;
  assert.deepEqual([r.aborted, r.exitCode, r.signal], [true, null, 'SIGTERM']);
  await waitUntil(() => !alive(pid), 'the aborted group to be gone');
});

test('maxOutputBytes keeps the tail on a character boundary and counts what it dropped', async () => {
  const r = await bash("for i in $(seq 1 100000); do printf '€'; done", { maxOutputBytes: 1000 });
  // 1000 bytes start one byte into a 3-byte character: that partial character is dropped too.
  assert.equal(r.stdout, '€'.repeat(333));
  assert.equal(r.droppedBytes, 300_000 - 999);
});

test(
  'maxOutputBytes bounds the memory of a spawner under huge output',
  { skip: process.platform !== 'linux' },
  async () => {
    const own = createSpawnerPool({ size: 1 });
    try {
      await own.run({
        file: 'true',
        args: [],
        cwd: dir,
        env: {},
        signal: new AbortController().signal,
        inactivityMs: 1000,
      });
      const pid = own.stats().spawners[0]!.pid!;
      const peakKb = () =>
        Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
      const before = peakKb();
      const total = 300 * 2 ** 20;
      const r = await own.run({
        file: 'bash',
        args: ['-c', `head -c ${total} /dev/zero; printf END`],
        cwd: dir,
        env: {},
        signal: new AbortController().signal,
        inactivityMs: 30_000,
        maxOutputBytes: 4096,
      });
      assert.equal(r.stdout.length, 4096);
      assert.ok(r.stdout.endsWith('END'));
      assert.equal(r.droppedBytes, total + 3 - 4096);
      // Keeping the output would have grown the spawner by the 300 MB it printed.
      assert.ok(peakKb() - before < 100 * 1024, `spawner peak grew by ${peakKb() - before} kB`);
    } finally {
      await own.close();
    }
  },
);

test(
  "a kept stdout far larger than a spawner's heap comes back whole, even when its JSON is six times its size",
  { skip: process.platform !== 'linux' },
  async () => {
    const kept = 16 * 2 ** 20;
    // NUL bytes are six characters each in JSON: one reply of them would need ~100 MB of a 32 MB heap.
    for (const [what, gen] of [
      ['x', "head -c 40000000 /dev/zero | tr '\\0' x"],
      ['NUL', 'head -c 40000000 /dev/zero'],
    ] as const) {
      const r = await bash(`${gen}; printf END`, { maxOutputBytes: kept });
      assert.equal(r.spawnError, undefined, what);
      assert.equal(r.stdout.length, kept, what);
      assert.ok(r.stdout.endsWith('END'), what);
      assert.equal(r.droppedBytes, 40_000_003 - kept, what);
    }
    assert.equal(pool.stats().deaths, 0, 'no spawner died');
  },
);
