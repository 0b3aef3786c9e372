import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { alive, sh, summary } from '../../helpers/cli.js';
import { ClaudeSandbox, PASS_QUESTIONS } from '../../helpers/claude-sandbox.js';
import { queueWorld, TEST_SECRET } from '../../helpers/queue-workers.js';

const box = new ClaudeSandbox();
const world = queueWorld(box, (home) => box.env({ HOME: home }));

/** A `--claude-bin` that logs the pid of each process it starts (`exec` keeps it) before it becomes the real `claude`. */
function countingClaude(name: string): { bin: string; pids: () => number[] } {
  const log = join(box.dir, `${name}.starts`);
  const bin = join(box.dir, `${name}-claude`);
  writeFileSync(
    bin,
    `#!/usr/bin/env bash\n${PASS_QUESTIONS}\necho "$$" >> '${log}'\nexec claude "$@"\n`,
  );
  chmodSync(bin, 0o755);
  const pids = () =>
    existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map(Number) : [];
  return { bin, pids };
}

describe('--queue: warm sessions on a worker (real claude, scripted API)', () => {
  it("an agent that calls gives its worker's live process up at once, not after the idle minute", async (t) => {
    if (!world.redis)
      return t.skip(
        'redis-server is not installed (apt-get install redis-server): queue tests skipped',
      );
    const proc = countingClaude('qwait');
    const worker = await world.workers.start('qwarm', { args: ['--claude-bin', proc.bin] });
    t.after(() => worker.kill());
    const started = join(box.dir, 'qwait-sub-started');
    const go = join(box.dir, 'qwait-go');
    box.server.on('QWAIT-CALLER', {
      text: 'caller secret-qwait-7 <call return="AFTER">SUB.sh</call>',
    });
    box.server.on('QWAIT-AFTER', (r) => ({
      text: `<result>${r.transcript.includes('secret-qwait-7') ? 'caller remembers' : 'caller forgot'}</result>`,
    }));
    const wf = box.write(
      {
        'START.md': 'QWAIT-CALLER: call',
        'SUB.sh': sh(
          `touch ${started}`,
          `while [ ! -e ${go} ]; do sleep 0.1; done`,
          'echo "<result>sub done</result>"',
        ),
        'AFTER.md': 'QWAIT-AFTER: back with {{input}}',
      },
      'qwait',
    );
    const run = box.run(
      [
        wf,
        '--queue',
        world.redis.url,
        '--json',
        '--workflow-id',
        'qwait',
        '--dangerously-skip-permissions',
      ],
      { RAYMOND_QUEUE_SECRET: TEST_SECRET },
    );
    for (let i = 0; i < 600 && !existsSync(started); i++) await sleep(50);
    assert.ok(existsSync(started), 'the callee runs');
    const [caller] = proc.pids();
    assert.ok(caller !== undefined, "the caller's turn started a claude");
    // The worker hears of it with its next heartbeat (each second).
    for (let i = 0; i < 100 && alive(caller); i++) await sleep(50);
    assert.ok(!alive(caller), "the caller's idle process is gone while its callee runs");
    writeFileSync(go, '');
    const r = await run;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'caller remembers');
    assert.equal(
      proc.pids().length,
      2,
      'the caller again, in a new process that resumed its session',
    );
  });
});
