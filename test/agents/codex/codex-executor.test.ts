import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { RunEvent } from '../../../machines/run-events.js';
import { createCodexExecutor } from '../../../src/agents/codex/codex-executor.js';
import { codexSessionPlace, findCodexSession } from '../../../src/agents/codex/codex-sessions.js';
import { CodexTurns, TURN_USD, close } from './codex-turns.js';

describe('the codex executor: threads and their cost (real codex against a scripted Responses API)', () => {
  const c = new CodexTurns();
  before(() => c.start());
  after(() => c.stop());

  it('runs a fresh turn: its text, its thread id, its cost from the price table; the prompt verbatim on stdin', async () => {
    c.sb.server.on('fresh turn', { text: '<goto>B</goto>' });
    const prompt = '-x @/etc/hostname fresh turn';
    const out = await c.run({ prompt });
    assert.equal(out.output, '<goto>B</goto>');
    assert.match(out.session!, /^[0-9a-f-]{36}$/);
    assert.ok(close(out.costUsd, TURN_USD), String(out.costUsd));
    assert.ok(close(out.sessionTotal!, TURN_USD));
    assert.equal(out.tokens, 1050);
    // Neither a flag nor a file: codex sends a stdin prompt as written.
    assert.equal(c.sb.server.requestsFor('fresh turn')[0]!.prompt, prompt);
    assert.ok(c.events.some((e) => e.type === 'print' && e.text === '<goto>B</goto>'));
    assert.ok(findCodexSession(out.session!, c.sb.env()));
  });

  it('resumes a thread: the next request carries the first turn, and only the new turn is charged', async () => {
    c.sb.server.on('resume one', { text: 'FIRST-REPLY' });
    c.sb.server.on('resume two', { text: 'second', usage: { input: 2000, output: 70 } });
    const first = await c.run({ prompt: 'resume one' });
    const second = await c.run({
      prompt: 'resume two',
      session: { kind: 'resume', session: first.session! },
      costBase: first.sessionTotal,
    });
    assert.equal(second.session, first.session);
    const req = c.sb.server.requestsFor('resume two')[0]!;
    assert.ok(req.transcript.includes('FIRST-REPLY'));
    assert.ok(req.inputCount > c.sb.server.requestsFor('resume one')[0]!.inputCount);
    const own = (2000 * 2 + 70 * 10) / 1e6;
    assert.ok(close(second.costUsd, own), String(second.costUsd));
    assert.ok(close(second.sessionTotal!, TURN_USD + own));
    assert.equal(second.tokens, 2070);
  });

  it('branches a thread (a <call>): a new thread from the caller, charged its own turn; the caller is untouched', async () => {
    c.sb.server.on('caller', { text: 'CALLER-REPLY' });
    c.sb.server.on('callee', { text: 'CALLEE-REPLY', usage: { input: 3000, output: 5 } });
    c.sb.server.on('caller again', { text: 'back' });
    const caller = await c.run({ prompt: 'caller' });
    const callee = await c.run({
      prompt: 'callee',
      session: { kind: 'branch', from: caller.session! },
      costBase: caller.sessionTotal,
    });
    assert.notEqual(callee.session, caller.session);
    assert.ok(c.sb.server.requestsFor('callee')[0]!.transcript.includes('CALLER-REPLY'));
    // codex's fork reports its parent's tokens too (6,000-odd in): the turn is charged its 3,005 only.
    assert.equal(callee.tokens, 3005);
    assert.ok(close(callee.costUsd, (3000 * 2 + 5 * 10) / 1e6), String(callee.costUsd));
    await c.run({ prompt: 'caller again', session: { kind: 'resume', session: caller.session! } });
    const back = c.sb.server.requestsFor('caller again')[0]!;
    assert.ok(back.transcript.includes('CALLER-REPLY'));
    assert.ok(!back.transcript.includes('CALLEE-REPLY'));
  });

  it('--continue-session branches the newest thread begun in the folder', async () => {
    const folder = join(c.sb.dir, 'user-folder');
    mkdirSync(folder);
    c.sb.server.on("user's own", { text: 'USER-THREAD' });
    c.sb.server.on('continued', { text: 'ok' });
    const user = await c.run({ prompt: "user's own", cwd: folder });
    const out = await c.run({ prompt: 'continued', cwd: folder, session: { kind: 'continue' } });
    assert.notEqual(out.session, user.session);
    assert.ok(c.sb.server.requestsFor('continued')[0]!.transcript.includes('USER-THREAD'));
    assert.ok(close(out.costUsd, TURN_USD));
  });

  it('resumes a session whose file was moved to another CODEX_HOME', async () => {
    c.sb.server.on('moved one', { text: 'MOVED-REPLY' });
    c.sb.server.on('moved two', { text: 'ok' });
    const first = await c.run({ prompt: 'moved one' });
    const file = findCodexSession(first.session!, c.sb.env())!;
    const other = join(c.sb.dir, 'other-codex-home');
    c.sb.writeConfig(other);
    const env = { ...c.sb.env(), CODEX_HOME: other };
    const place = codexSessionPlace(first.session!, basename(file), env);
    mkdirSync(dirname(place), { recursive: true });
    copyFileSync(file, place);
    const second = await c.run({
      prompt: 'moved two',
      session: { kind: 'resume', session: first.session! },
      env: { CODEX_HOME: other },
    });
    assert.equal(second.session, first.session);
    assert.ok(c.sb.server.requestsFor('moved two')[0]!.transcript.includes('MOVED-REPLY'));
    assert.ok(close(second.costUsd, TURN_USD));
  });

  it('a model without a price costs nothing and is warned about once', async () => {
    c.sb.server.on('unpriced', { text: 'ok' });
    const seen: RunEvent[] = [];
    const rt = { ...c.runtime, emit: (e: RunEvent) => seen.push(e) };
    const exec = createCodexExecutor(rt);
    for (const _ of [1, 2]) {
      const out = await exec.execute(c.request({ prompt: 'unpriced', model: 'gpt-unpriced' }));
      assert.equal(out.costUsd, 0);
      assert.equal(out.tokens, 1050);
    }
    const warnings = seen.filter((e) => e.type === 'warning');
    assert.equal(warnings.length, 1);
    assert.match(
      (warnings[0] as { text: string }).text,
      /gpt-unpriced.*\[raymond\.prices\."gpt-unpriced"\] input = .*cached_input = .*output = /,
    );
  });

  it('a turn that ends with no message (a refusal) is a reply without tags', async () => {
    c.sb.server.on('refuse this', { refusal: "I can't help with that." });
    const out = await c.run({ prompt: 'refuse this' });
    assert.equal(out.output, '');
  });
});
