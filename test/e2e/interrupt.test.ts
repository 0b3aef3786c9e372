import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { alive, CLI, Sandbox, sh } from '../helpers/cli.js';

const boxes: Sandbox[] = [];
after(() => boxes.forEach((b) => b.remove()));

async function waitFor(
  check: () => string | undefined,
  what: string,
  ms = 15_000,
): Promise<string> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const v = check();
    if (v) return v;
    await sleep(50);
  }
  throw new Error(`${what} never happened`);
}

const pidFile = (box: Sandbox, agent: string) => () => {
  const path = join(box.dir, `${agent}.pid`);
  return existsSync(path) ? readFileSync(path, 'utf8').trim() || undefined : undefined;
};

/** Two agents, each sleeping in a script whose background child writes a pid file. */
function sleepers(box: Sandbox, seconds: number): string {
  return box.write({
    'START.sh': sh('echo "<fork next=\\"WAIT\\">SLEEP</fork>"'),
    'SLEEP.sh': sh(
      `sleep ${seconds} & echo $! > "$RAYMOND_AGENT_ID.pid"`,
      'wait',
      'echo "<goto>AGAIN</goto>"',
    ),
    'WAIT.sh': sh(
      `sleep ${seconds} & echo $! > "$RAYMOND_AGENT_ID.pid"`,
      'wait',
      'echo "<result>waited</result>"',
    ),
    'AGAIN.sh': sh('echo "<result>slept twice</result>"'),
  });
}

describe('interrupting a run', () => {
  it('the first Ctrl-C lets running steps finish and starts nothing new; exit 130, resumable', async () => {
    const box = new Sandbox();
    boxes.push(box);
    const child = execa(process.execPath, [CLI, sleepers(box, 2), '--workflow-id', 'drain'], {
      cwd: box.dir,
      reject: false,
      stdin: 'ignore',
    });
    await waitFor(pidFile(box, 'main'), 'main started');
    await waitFor(pidFile(box, 'main_sleep1'), 'worker started');
    child.kill('SIGINT');
    const r = await child;
    assert.equal(r.exitCode, 130, String(r.stderr));
    assert.match(String(r.stderr), /letting running steps finish \(Ctrl-C again to kill them\)/);
    const state = box.state('drain');
    assert.equal(state.status, 'running');
    assert.deepEqual(
      state.results,
      { main: 'waited' },
      'the running steps finished and were recorded',
    );
    const worker = state.agents.find((a) => a.id === 'main_sleep1')!;
    assert.equal(worker.state, 'AGAIN.sh', 'its next step was not started');
    assert.match(String(r.stderr), /resume with: raymond --resume drain/);
  });

  it('a second Ctrl-C kills every process group', async () => {
    const box = new Sandbox();
    boxes.push(box);
    const child = execa(process.execPath, [CLI, sleepers(box, 60), '--workflow-id', 'kill2'], {
      cwd: box.dir,
      reject: false,
      stdin: 'ignore',
    });
    const pids = [
      Number(await waitFor(pidFile(box, 'main'), 'main')),
      Number(await waitFor(pidFile(box, 'main_sleep1'), 'worker')),
    ];
    child.kill('SIGINT');
    await sleep(300);
    assert.ok(pids.every(alive), 'still running after the first Ctrl-C');
    child.kill('SIGINT');
    const r = await child;
    assert.equal(r.exitCode, 130);
    await sleep(200);
    assert.deepEqual(pids.map(alive), [false, false]);
    const agents = Object.fromEntries(
      box.state('kill2').agents.map((a) => [a.id, `${a.state}:${a.status}`]),
    );
    assert.deepEqual(agents, { main: 'WAIT.sh:active', main_sleep1: 'SLEEP.sh:active' });
  });

  it('SIGTERM kills at once and exits 143 (128 + 15)', async () => {
    const box = new Sandbox();
    boxes.push(box);
    const child = execa(process.execPath, [CLI, sleepers(box, 60), '--workflow-id', 'term'], {
      cwd: box.dir,
      reject: false,
      stdin: 'ignore',
    });
    const pid = Number(await waitFor(pidFile(box, 'main_sleep1'), 'worker'));
    child.kill('SIGTERM');
    const r = await child;
    assert.equal(r.exitCode, 143);
    assert.match(
      String(r.stderr),
      /raymond: terminated \(SIGTERM\); stopping every step \(the state file keeps the run\)/,
    );
    await sleep(200);
    assert.equal(alive(pid), false);
    assert.equal(box.state('term').status, 'running');
  });
});

describe('a run whose orchestrator is gone', () => {
  it('is listed as interrupted, not running, by --list, --status and --recover', async () => {
    const box = new Sandbox();
    boxes.push(box);
    const child = execa(process.execPath, [CLI, sleepers(box, 60), '--workflow-id', 'killed'], {
      cwd: box.dir,
      reject: false,
      stdin: 'ignore',
    });
    const pids = [
      Number(await waitFor(pidFile(box, 'main'), 'main')),
      Number(await waitFor(pidFile(box, 'main_sleep1'), 'worker')),
    ];
    child.kill('SIGKILL');
    await child;
    for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    assert.equal(box.state('killed').status, 'running', 'the state file still says running');
    const list = await box.run(['--list']);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^killed {2}interrupted {2}2 live /m);
    const json = JSON.parse((await box.run(['--list', '--json'])).stdout) as Array<{
      workflow_id: string;
      status: string;
      running_pid: number | null;
    }>;
    assert.deepEqual(
      json.map((r) => [r.workflow_id, r.status, r.running_pid]),
      [['killed', 'interrupted', null]],
    );
    const status = await box.run(['--status', 'killed']);
    assert.match(
      status.stdout,
      /^run killed: interrupted \(its process is gone; resume with raymond --resume killed\)$/m,
    );
    assert.equal(
      JSON.parse((await box.run(['--status', 'killed', '--json'])).stdout).status,
      'interrupted',
    );
    assert.match(
      (await box.run(['--recover'])).stdout,
      /^killed {2}interrupted {2}2 live .*\n {2}raymond --resume killed$/m,
    );
  });
});
