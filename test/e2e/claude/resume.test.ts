import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { CLI, readRunState, summary } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

describe('resuming markdown states with the real claude', () => {
  it('a run killed in the middle of a turn resumes that turn’s reserved session', async () => {
    const s = box.server;
    let stalls = 0;
    s.on('SLOW-TURN', (r, n) => {
      if (n === 1) {
        stalls++;
        return { stall: true };
      }
      return {
        text: `<result>${r.transcript.includes('first-half-marker') ? 'resumed the same session' : 'lost the session'}</result>`,
      };
    });
    s.on('PREPARE', { text: 'first-half-marker <goto>SLOW</goto>' });
    const wf = box.write({ 'START.md': 'PREPARE', 'SLOW.md': 'SLOW-TURN' }, 'killed');
    const child = execa(process.execPath, [CLI, wf, '--workflow-id', 'killed'], {
      cwd: box.dir,
      env: box.env(),
      reject: false,
      stdin: 'ignore',
    });
    for (let i = 0; i < 200 && stalls === 0; i++) await sleep(50);
    assert.equal(stalls, 1, 'the second turn is in flight');
    const mid = readRunState(join(box.dir, '.raymond/state/killed.json'));
    const main = mid.agents[0]!;
    assert.equal(main.state, 'SLOW.md');
    child.kill('SIGKILL');
    await child;
    // The orphaned claude of the killed run is still waiting on the server: end it.
    await execa('pkill', ['-f', main.session!], { reject: false });
    const r = await box.run(['--resume', 'killed', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'resumed the same session');
    assert.equal(
      box.state('killed').agents[0]!.session,
      main.session,
      'goto kept the session across the crash',
    );
  });

  it('a fresh turn killed midway is resumed under its reserved id', async () => {
    const s = box.server;
    let stalled = false;
    s.on('FRESH-KILLED', (r, n) => {
      if (n === 1) {
        stalled = true;
        return { stall: true };
      }
      return { text: `<result>${r.messageCount}</result>` };
    });
    const wf = box.write({ 'START.md': 'FRESH-KILLED' }, 'freshkill');
    const child = execa(process.execPath, [CLI, wf, '--workflow-id', 'freshkill'], {
      cwd: box.dir,
      env: box.env(),
      reject: false,
      stdin: 'ignore',
    });
    for (let i = 0; i < 200 && !stalled; i++) await sleep(50);
    const reserved = readRunState(join(box.dir, '.raymond/state/freshkill.json')).agents[0]!
      .next_session!;
    assert.match(reserved, /^[0-9a-f-]{36}$/);
    child.kill('SIGKILL');
    await child;
    await execa('pkill', ['-f', reserved], { reject: false });
    const r = await box.run(['--resume', 'freshkill', '--json', '--verbose']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      box.state('freshkill').agents[0]!.session,
      reserved,
      'the turn ran in the reserved session',
    );
    assert.match(
      r.stderr,
      new RegExp(`session ${reserved} already exists; resuming it`),
      'it continued what the killed run began',
    );
    assert.ok(
      Number(summary(r).results.main) > 2,
      'the resumed conversation holds the killed turn',
    );
  });

  it('a fresh turn uses the id reserved in the state file before it started', async () => {
    const s = box.server;
    s.on('RESERVE-1', { text: '<reset>R2</reset>' });
    s.on('RESERVE-2', { text: '<result>ok</result>' });
    const wf = box.write({ 'START.md': 'RESERVE-1', 'R2.md': 'RESERVE-2' }, 'reserve');
    const r = await box.run([wf, '--workflow-id', 'reserve', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const log = readFileSync(join(box.dir, '.raymond/debug/reserve/transitions.log'), 'utf8')
      .trim()
      .split('\n');
    const first = /session=(\S+)/.exec(log[0]!)![1];
    const second = /session=(\S+)/.exec(log[1]!)![1];
    assert.notEqual(first, second, 'reset started a new session');
    const state = box.state('reserve');
    assert.equal(state.agents[0]!.session, second);
    assert.ok(existsSync(join(box.dir, '.raymond/debug/reserve')));
  });
});
