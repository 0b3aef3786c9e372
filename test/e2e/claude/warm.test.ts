import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { alive, CLI, summary } from '../../helpers/cli.js';
import { ClaudeSandbox, PASS_QUESTIONS } from '../../helpers/claude-sandbox.js';

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

/**
 * A `--claude-bin` that logs each process it starts (its pid, which `exec`
 * keeps, and its flags) before it becomes the real `claude`: the test
 * counts processes, not turns.
 */
function countingClaude(name: string): {
  bin: string;
  starts: () => Array<{ pid: number; args: string }>;
} {
  const log = join(box.dir, `${name}.starts`);
  const bin = join(box.dir, `${name}-claude`);
  writeFileSync(
    bin,
    `#!/usr/bin/env bash\n${PASS_QUESTIONS}\necho "$$ $*" >> '${log}'\nexec claude "$@"\n`,
  );
  chmodSync(bin, 0o755);
  const starts = () =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .map((l) => ({ pid: Number(l.split(' ')[0]), args: l.slice(l.indexOf(' ') + 1) }))
      : [];
  return { bin, starts };
}

/** A chain START -> S2 -> ... -> S{n} -> result, each prompt naming its marker; the first reply says a secret. */
function chain(name: string, n: number, frontmatter: Record<number, string> = {}): string {
  const files: Record<string, string> = {};
  for (let i = 1; i <= n; i++)
    files[i === 1 ? 'START.md' : `S${i}.md`] =
      `${frontmatter[i] ? `---\n${frontmatter[i]}\n---\n` : ''}${name.toUpperCase()}-STEP-${i}: go on`;
  box.server.on(`${name.toUpperCase()}-STEP-`, (r) => {
    const i = Number(/STEP-(\d+)/.exec(r.prompt)![1]);
    const secret = i === 1 ? ` secret-${name}-42` : '';
    return {
      text:
        i < n
          ? `step ${i}${secret} <goto>S${i + 1}</goto>`
          : `<result>${name} done, saw ${r.transcript.includes(`secret-${name}-42`) ? 'the secret' : 'nothing'}</result>`,
      usage: { input_tokens: 1000, output_tokens: 100 },
    };
  });
  return box.write(files, name);
}

describe('warm sessions (real claude, scripted API)', () => {
  it('a 5-step <goto> chain runs in one claude process and keeps its conversation; --no-warm starts one per turn; the costs agree', async () => {
    const warm = countingClaude('chain');
    const wf = chain('chain', 5);
    const r = await box.run([wf, '--json', '--workflow-id', 'chain', '--claude-bin', warm.bin]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'chain done, saw the secret');
    assert.equal(warm.starts().length, 1, 'one process for five turns');
    assert.match(warm.starts()[0]!.args, /--input-format stream-json/);
    assert.equal(box.server.requestsFor('CHAIN-STEP-').length, 5);

    const cold = countingClaude('cold');
    const r2 = await box.run([
      wf,
      '--json',
      '--workflow-id',
      'chain-cold',
      '--claude-bin',
      cold.bin,
      '--no-warm',
    ]);
    assert.equal(r2.code, 0, r2.stderr);
    assert.equal(cold.starts().length, 5, 'a process per turn');
    assert.doesNotMatch(cold.starts()[0]!.args, /--input-format/);
    // The same five requests of the same size: the same true total, charged once per turn either way.
    assert.ok(summary(r).total_cost_usd > 0);
    assert.ok(
      Math.abs(summary(r).total_cost_usd - summary(r2).total_cost_usd) < 1e-9,
      `${summary(r).total_cost_usd} vs ${summary(r2).total_cost_usd}`,
    );
  });

  it('a reminder re-prompt goes to the same process; a model change is made in it; an effort change starts one that resumes', async () => {
    const proc = countingClaude('settings');
    box.server.on('Reminder: your previous reply could not be used', { text: '<goto>S2</goto>' });
    box.server.on('SET-1', { text: 'first secret-set-7, but no tag' });
    box.server.on('SET-2', (r) => ({ text: `model ${r.model} <goto>S3</goto>` }));
    box.server.on('SET-3', (r) => ({
      text: `<result>${r.model.includes('haiku') ? 'haiku' : r.model}, ${r.transcript.includes('secret-set-7') ? 'remembers' : 'forgot'}</result>`,
    }));
    const wf = box.write(
      {
        'START.md':
          '---\nallowed_transitions:\n  - { tag: goto, target: S2 }\n  - { tag: result }\n---\nSET-1: start',
        'S2.md': '---\nmodel: haiku\n---\nSET-2: on haiku',
        'S3.md': '---\nmodel: haiku\neffort: high\n---\nSET-3: harder',
      },
      'settings',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'settings', '--claude-bin', proc.bin]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'haiku, remembers');
    assert.match(r.stderr, /reminding \(1\/\d\)/);
    const [s2] = box.server.requestsFor('SET-2');
    assert.match(s2!.model, /haiku/, 'the model was switched in the live process');
    const starts = proc.starts();
    assert.equal(
      starts.length,
      2,
      `the reminder and the model change in one process, the effort change in a second: ${starts.map((s) => s.args).join(' | ')}`,
    );
    assert.match(
      starts[1]!.args,
      /--resume [0-9a-f-]{36}.*--effort high|--effort high.*--resume [0-9a-f-]{36}/,
    );
  });

  it('claude killed mid-turn is retried cold and the chain completes', async () => {
    const proc = countingClaude('killed');
    box.server.on('KILLED-STEP-2', { text: 'slow <goto>S3</goto>', delayMs: 3000 });
    const wf = chain('killed', 3);
    const run = box.run([wf, '--json', '--workflow-id', 'killed', '--claude-bin', proc.bin]);
    for (let i = 0; i < 200 && box.server.requestsFor('KILLED-STEP-2').length === 0; i++)
      await sleep(50);
    process.kill(proc.starts()[0]!.pid, 'SIGKILL');
    const r = await run;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'killed done, saw the secret');
    assert.match(r.stderr, /retrying \(1\/3\)/);
    assert.equal(proc.starts().length, 2);
    assert.match(
      proc.starts()[1]!.args,
      /--resume [0-9a-f-]{36}/,
      'the retry resumed the session cold',
    );
  });

  it('Raymond killed with SIGKILL leaves no claude behind, and --resume completes the chain with its conversation', async () => {
    const proc = countingClaude('sigkill');
    box.server.on('SIGKILL-STEP-3', { text: 'step 3 <goto>S4</goto>', delayMs: 500 });
    const wf = chain('sigkill', 5);
    const child = execa(
      process.execPath,
      [CLI, wf, '--workflow-id', 'sigkill', '--claude-bin', proc.bin, '--quiet'],
      { cwd: box.dir, env: box.env(), reject: false, stdin: 'ignore' },
    );
    for (let i = 0; i < 200 && box.server.requestsFor('SIGKILL-STEP-3').length === 0; i++)
      await sleep(50);
    child.kill('SIGKILL');
    await child;
    const pids = proc.starts().map((s) => s.pid);
    for (let i = 0; i < 100 && pids.some(alive); i++) await sleep(100);
    assert.deepEqual(pids.filter(alive), [], 'every claude process ended with its stdin');
    const r = await box.run(['--resume', 'sigkill', '--json', '--claude-bin', proc.bin]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'sigkill done, saw the secret');
  });

  it('an agent waiting for its callee gives its process up, and resumes its session in a new one', async () => {
    const proc = countingClaude('waits');
    box.server.on('WAITS-CALLER', {
      text: 'caller secret-waits-5 <call return="AFTER">SUB</call>',
    });
    box.server.on('WAITS-SUB', { text: '<goto>SLOW.sh</goto>' });
    box.server.on('WAITS-AFTER', (r) => ({
      text: `<result>${r.transcript.includes('secret-waits-5') ? 'caller remembers' : 'caller forgot'}</result>`,
    }));
    const wf = box.write(
      {
        'START.md': 'WAITS-CALLER: call',
        'SUB.md': 'WAITS-SUB: work',
        'SLOW.sh': '#!/usr/bin/env bash\nsleep 4\necho "<result>sub done</result>"\n',
        'AFTER.md': 'WAITS-AFTER: back with {{input}}',
      },
      'waits',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'waits', '--claude-bin', proc.bin]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'caller remembers');
    const starts = proc.starts();
    assert.equal(
      starts.length,
      3,
      `caller, callee branch, caller again after its idle process was let go: ${starts.map((s) => s.args).join(' | ')}`,
    );
    assert.match(starts[2]!.args, /--resume [0-9a-f-]{36}/);
    assert.ok(!alive(starts[0]!.pid), "the caller's first process is gone");
  });
});
