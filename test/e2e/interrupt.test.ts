import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { alive, CLI, Sandbox, sh } from '../helpers/cli.js';

const boxes: Sandbox[] = [];
after(() => boxes.forEach((b) => b.remove()));

async function waitForFile(path: string, ms = 10_000): Promise<string> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (existsSync(path)) {
      const text = readFileSync(path, 'utf8');
      if (text.trim()) return text.trim();
    }
    await sleep(50);
  }
  throw new Error(`${path} never appeared`);
}


describe('interrupting a run', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} kills every step's process group, exits 130 and leaves a resumable state file`, async () => {
      const box = new Sandbox();
      boxes.push(box);
      const wf = box.write(
        {
          'START.sh': sh('echo "<fork next=\\"WAIT\\">SLEEP</fork>"'),
          'SLEEP.sh': sh('sleep 60 & echo $! > "$RAYMOND_AGENT_ID.pid"', 'wait', 'echo "<result>woke</result>"'),
          'WAIT.sh': sh('sleep 60 & echo $! > "$RAYMOND_AGENT_ID.pid"', 'wait', 'echo "<result>waited</result>"'),
        },
        signal,
      );
      const child = execa(process.execPath, [CLI, wf, '--workflow-id', `int-${signal}`], { cwd: box.dir, reject: false, stdin: 'ignore' });
      const pids = [Number(await waitForFile(join(box.dir, 'main.pid'))), Number(await waitForFile(join(box.dir, 'main_sleep1.pid')))];
      assert.ok(pids.every(alive));
      child.kill(signal);
      const r = await child;
      assert.equal(r.exitCode, 130, String(r.stderr));
      assert.match(String(r.stderr), /interrupted; stopping every step/);
      await sleep(200);
      assert.deepEqual(pids.map(alive), [false, false], 'the sleeping grandchildren died with their groups');
      const state = box.state(`int-${signal}`);
      assert.equal(state.status, 'running');
      const agents = Object.fromEntries(state.agents.map((a) => [a.id, `${a.state}:${a.status}`]));
      assert.deepEqual(agents, { main: 'WAIT.sh:active', main_sleep1: 'SLEEP.sh:active' });
    });
  }
});
