import assert from 'node:assert/strict';
import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { raymond, summary } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

/** Fresh turns send 2 messages (a reminder and the prompt); each resumed turn adds 3. */
const FRESH = 2;

describe('sessions per tag, with the real claude binary', () => {
  it('goto keeps context; reset drops it', async () => {
    const s = box.server;
    s.on('GOTO-A', { text: 'marker-a-123 <goto>GOTO_B</goto>' });
    s.on('GOTO-B', { text: 'seen <reset>GOTO_C</reset>' });
    s.on('GOTO-C', { text: '<result>done</result>' });
    const wf = box.write(
      {
        'START.md': 'GOTO-A: say the marker',
        'GOTO_B.md': 'GOTO-B: continue',
        'GOTO_C.md': 'GOTO-C: fresh',
      },
      'goto',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'goto']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'done');
    const [b] = s.requestsFor('GOTO-B');
    assert.ok(b!.messageCount > FRESH, `goto resumed (${b!.messageCount} messages)`);
    assert.match(b!.transcript, /marker-a-123/);
    const [c] = s.requestsFor('GOTO-C');
    assert.equal(c!.messageCount, FRESH, 'reset started fresh');
    assert.doesNotMatch(c!.transcript, /marker-a-123/);
    const main = box.state('goto').agents[0]!;
    assert.match(main.session!, /^[0-9a-f-]{36}$/);
  });

  it('call branches from the caller, and the caller never sees the callee turns', async () => {
    const s = box.server;
    s.on('CALL-CALLER', { text: 'caller-marker-1 <call return="CALL_AFTER">CALL_CHILD</call>' });
    s.on('CALL-CHILD-1', { text: 'child-noise-9 <goto>CALL_CHILD2</goto>' });
    s.on('CALL-CHILD-2', { text: '<result>child result</result>' });
    s.on('CALL-AFTER', (r) => ({
      text: `<result>after: ${r.prompt.includes('child result') ? 'got input' : 'no input'}</result>`,
    }));
    const wf = box.write(
      {
        'START.md': 'CALL-CALLER: start',
        'CALL_CHILD.md': 'CALL-CHILD-1',
        'CALL_CHILD2.md': 'CALL-CHILD-2',
        'CALL_AFTER.md': 'CALL-AFTER: the child said {{input}}',
      },
      'call',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'call']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'after: got input');
    const [child] = s.requestsFor('CALL-CHILD-1');
    assert.match(child!.transcript, /caller-marker-1/, 'the callee branched from the caller');
    const [child2] = s.requestsFor('CALL-CHILD-2');
    assert.match(child2!.transcript, /child-noise-9/, 'goto inside the callee keeps the branch');
    const [back] = s.requestsFor('CALL-AFTER');
    assert.match(back!.transcript, /caller-marker-1/, 'the caller session was resumed');
    assert.doesNotMatch(
      back!.transcript,
      /child-noise-9/,
      'the caller never sees the callee turns',
    );
    assert.equal(
      back!.messageCount,
      child!.messageCount,
      'the caller’s history plus one prompt, as when the callee branched',
    );
  });

  it('function starts fresh and returns to the caller session', async () => {
    const s = box.server;
    s.on('FN-CALLER', { text: 'fn-caller-7 <function return="FN_AFTER">FN_EVAL</function>' });
    s.on('FN-EVAL', { text: '<result>YES</result>' });
    s.on('FN-AFTER', { text: '<result>ok</result>' });
    const wf = box.write(
      { 'START.md': 'FN-CALLER', 'FN_EVAL.md': 'FN-EVAL', 'FN_AFTER.md': 'FN-AFTER {{result}}' },
      'fn',
    );
    const r = await box.run([wf, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const [evaluation] = s.requestsFor('FN-EVAL');
    assert.equal(evaluation!.messageCount, FRESH);
    assert.doesNotMatch(evaluation!.transcript, /fn-caller-7/);
    const [back] = s.requestsFor('FN-AFTER');
    assert.match(back!.transcript, /fn-caller-7/);
    assert.match(back!.prompt, /FN-AFTER YES/);
  });

  it('fork workers start fresh in their cd directory', async () => {
    const s = box.server;
    mkdirSync(join(box.dir, 'w1'), { recursive: true });
    s.on('FORK-PARENT', {
      text: 'parent-5 <fork next="FORK_NEXT" cd="w1" item="apple">FORK_WORKER</fork>',
    });
    s.on('FORK-WORKER', (r) => ({ text: `<result>${r.prompt.split(' ')[1]}</result>` }));
    s.on('FORK-NEXT', { text: '<result>parent done</result>' });
    const wf = box.write(
      {
        'START.md': 'FORK-PARENT',
        'FORK_WORKER.md': 'FORK-WORKER {{item}}',
        'FORK_NEXT.md': 'FORK-NEXT',
      },
      'fork',
    );
    const r = await box.run([wf, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(summary(r).results, { main: 'parent done', main_forkwo1: 'apple' });
    const [worker] = s.requestsFor('FORK-WORKER');
    assert.equal(worker!.messageCount, FRESH);
    assert.equal(worker!.cwd, realpathSync(join(box.dir, 'w1')));
    const [next] = s.requestsFor('FORK-NEXT');
    assert.match(next!.transcript, /parent-5/, "the parent's continuation resumes its session");
  });

  it('model precedence: frontmatter, then --model, then the default', async () => {
    const s = box.server;
    s.on('MODEL-1', { text: '<goto>M2</goto>' });
    s.on('MODEL-2', { text: '<goto>M3</goto>' });
    s.on('MODEL-3', { text: '<result>ok</result>' });
    const wf = box.write(
      {
        'START.md': '---\nmodel: haiku\n---\nMODEL-1',
        'M2.md': 'MODEL-2',
        'M3.md': '---\neffort: low\n---\nMODEL-3',
      },
      'model',
    );
    assert.equal((await box.run([wf, '--model', 'sonnet'])).code, 0);
    assert.match(s.requestsFor('MODEL-1')[0]!.model, /haiku/);
    assert.match(s.requestsFor('MODEL-2')[0]!.model, /sonnet/);
    assert.match(s.requestsFor('MODEL-3')[0]!.model, /sonnet/);
    s.on('MODEL-DEFAULT', { text: '<result>ok</result>' });
    const plain = box.write({ 'START.md': 'MODEL-DEFAULT' }, 'model-default');
    assert.equal((await box.run([plain])).code, 0);
    assert.match(s.requestsFor('MODEL-DEFAULT')[0]!.model, /opus/, 'Claude Code’s own default');
  });

  it('an invalid model in frontmatter is an error naming the file', async () => {
    const wf = box.write({ 'START.md': '---\nmodel: gpt-4\n---\nhi' }, 'badmodel');
    const r = await box.run([wf]);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /raymond: .*badmodel\/START\.md: model "gpt-4" is not opus, sonnet, haiku or a full model name \(claude-\.\.\.\)/,
    );
  });

  it('full model names go to Claude Code as written, from frontmatter and --model, as in ray', async () => {
    const s = box.server;
    s.on('FULLNAME-1', { text: '<goto>TWO</goto>' });
    s.on('FULLNAME-2', { text: '<result>ok</result>' });
    const wf = box.write(
      {
        'START.md': '---\nmodel: claude-haiku-4-5-20251001\n---\nFULLNAME-1',
        'TWO.md': 'FULLNAME-2',
      },
      'fullname',
    );
    const r = await box.run([wf, '--model', 'claude-sonnet-4-5']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(s.requestsFor('FULLNAME-1')[0]!.model, 'claude-haiku-4-5-20251001');
    assert.equal(s.requestsFor('FULLNAME-2')[0]!.model, 'claude-sonnet-4-5');
  });

  it("--continue-session: the main agent's first turn continues the user's newest session in the folder, forked, and is charged only its own share", async () => {
    const s = box.server;
    s.on('USER-OWN', {
      text: 'noted user-secret-31',
      usage: { input_tokens: 1000, output_tokens: 100 },
    });
    s.on('CONT-FIRST', (r) => ({
      text: `<goto>TWO</goto> ${r.transcript.includes('user-secret-31') ? 'I remember' : 'nothing'}`,
      usage: { input_tokens: 1000, output_tokens: 100 },
    }));
    s.on('CONT-TWO', (r) => ({
      text: `<result>${r.transcript.includes('user-secret-31') ? 'still remembers' : 'forgot'}</result>`,
      usage: { input_tokens: 1000, output_tokens: 100 },
    }));
    const dir = join(box.dir, 'cont');
    mkdirSync(dir);
    // The user's own Claude Code session in that folder.
    const own = await execa(
      'claude',
      [
        '-p',
        '--dangerously-skip-permissions',
        '--output-format',
        'json',
        '--',
        'USER-OWN: remember this',
      ],
      { cwd: dir, env: box.env({ IS_SANDBOX: '1' }), stdin: 'ignore' },
    );
    const user = JSON.parse(own.stdout) as { session_id: string; total_cost_usd: number };
    const wf = box.write(
      { 'START.md': 'CONT-FIRST: go', 'TWO.md': 'CONT-TWO: and now' },
      'cont/wf',
    );
    const r = await raymond(
      [join(wf, 'START.md'), '--json', '--workflow-id', 'cont', '--continue-session'],
      { cwd: dir, env: box.env() },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'still remembers');
    const main = box.state('cont').agents[0]!;
    assert.notEqual(
      main.session,
      user.session_id,
      "a fork: the user's own session stays as it was",
    );
    // The run's two turns, not the user's turn before them.
    const total = summary(r).total_cost_usd;
    assert.ok(
      total > 0 && total < 3 * user.total_cost_usd,
      `${total} against ${user.total_cost_usd} a turn`,
    );
    const bad = await raymond(['--resume', 'cont', '--continue-session'], {
      cwd: dir,
      env: box.env(),
    });
    assert.equal(bad.code, 64);
    assert.match(bad.stderr, /--continue-session starts a new run/);
  });

  it('{{input}} comes from --input', async () => {
    box.server.on('INPUT-STATE', (r) => ({
      text: `<result>${/INPUT-STATE got: (.*)/.exec(r.prompt)?.[1]}</result>`,
    }));
    const wf = box.write({ 'START.md': 'INPUT-STATE got: {{input}}' }, 'input');
    const r = await box.run([wf, '--json', '--input', 'forty two']);
    assert.equal(summary(r).results.main, 'forty two');
  });
});
