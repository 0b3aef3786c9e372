import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { execa } from 'execa';
import { ROOT, alive } from '../helpers/cli.js';

/**
 * A Node process standing in for Raymond: it starts `sleep` groups as
 * Raymond starts Claude Code (detached, registered), ends one itself, prints
 * the pids, and waits to be killed.
 */
const OWNER = `
import { spawn } from 'node:child_process';
import { registerGroup, unregisterGroup } from './src/executors/process-registry.ts';
// The third ignores SIGTERM, as a process busy cleaning up might: SIGKILL follows.
const start = (deaf = false) => {
  const c = deaf
    ? spawn('sh', ['-c', 'trap "" TERM; exec sleep 60'], { detached: true, stdio: 'ignore' })
    : spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
  c.unref();
  registerGroup(c.pid);
  return c.pid;
};
const [a, b, c] = [start(), start(), start(true)];
// b ended and was let go: the watchdog forgets it.
process.kill(-b, 'SIGKILL');
unregisterGroup(b);
const spawned = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
spawned.unref();
registerGroup(spawned.pid, { watched: false });
console.log(JSON.stringify({ watched: [a, c], gone: b, unwatched: spawned.pid }));
setInterval(() => {}, 1000);
`;

describe('group watchdog', () => {
  it("stops the groups Raymond started itself when Raymond is SIGKILLed (SIGTERM, then SIGKILL), and no spawner's", async () => {
    const owner = execa(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', OWNER], {
      cwd: ROOT,
      reject: false,
      buffer: false,
    });
    const line = await new Promise<string>((resolve) =>
      owner.stdout.once('data', (d: Buffer) => resolve(String(d))),
    );
    const pids = JSON.parse(line) as { watched: number[]; gone: number; unwatched: number };
    try {
      for (const pid of pids.watched) assert.ok(alive(pid), 'running while Raymond runs');
      owner.kill('SIGKILL');
      await owner;
      // SIGTERM at once, SIGKILL 2 s later for the one that ignores it.
      for (let i = 0; i < 100 && pids.watched.some(alive); i++) await sleep(50);
      assert.deepEqual(pids.watched.filter(alive), [], 'every watched group ended with Raymond');
      assert.ok(alive(pids.unwatched), 'a group a spawner owns is left to its spawner');
    } finally {
      for (const pid of [...pids.watched, pids.unwatched])
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // Gone.
        }
    }
  });
});
