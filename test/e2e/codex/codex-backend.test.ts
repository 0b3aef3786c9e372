import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { summary } from '../../helpers/cli.js';
import { CodexSandbox } from '../../helpers/codex-sandbox.js';

const box = new CodexSandbox();
/** A folder beside the sandbox, outside the agent's workspace. */
const outside = mkdtempSync(join(tmpdir(), 'raymond-codex-outside-'));
before(async () => {
  await box.start();
  // The sandbox's model, priced as a user would price a model the table lacks.
  writeFileSync(
    join(box.dir, '.raymond', 'config.toml'),
    '[raymond.prices."mock-model"]\ninput = 2\ncached_input = 0.5\noutput = 10\n',
  );
});
after(async () => {
  await box.stop();
  rmSync(outside, { recursive: true, force: true });
});

const CODEX = 'backend: codex\n';
/** One turn of the scripted server's default usage (1,000 tokens in, 100 of them cached, 50 out) at the config's prices. */
const TURN_USD = (900 * 2 + 100 * 0.5 + 50 * 10) / 1_000_000;
const near = (a: number, b: number) => Math.abs(a - b) < 1e-9;

describe('backend: codex, with the real codex and the scripted Responses API', () => {
  it('a <goto> chain keeps the conversation, and the cost is the priced tokens of each turn', async () => {
    const s = box.server;
    s.on('CDX-GOTO-1', { text: 'cdx-marker-77 <goto>TWO</goto>' });
    s.on('CDX-GOTO-2', (r) => ({
      text: `<result>${r.transcript.includes('cdx-marker-77') ? 'remembered' : 'forgot'}</result>`,
    }));
    const wf = box.write(
      { 'workflow.yaml': CODEX, 'START.md': 'CDX-GOTO-1', 'TWO.md': 'CDX-GOTO-2' },
      'cdxgoto',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'cdxgoto']);
    assert.equal(r.code, 0, r.stderr);
    const out = summary(r);
    assert.equal(out.results.main, 'remembered');
    assert.ok(near(out.total_cost_usd, 2 * TURN_USD), `cost ${out.total_cost_usd}`);
    assert.ok(
      s.requestsFor('CDX-GOTO-2')[0]!.inputCount > s.requestsFor('CDX-GOTO-1')[0]!.inputCount,
      'the second request carries the first turn',
    );
  });

  it('<call> branches and the caller stays clean; <reset> and forked workers start fresh', async () => {
    const s = box.server;
    s.on('CDX-CALLER', { text: 'cdx-caller-1 <call return="BACK">CHILD</call>' });
    s.on('CDX-CHILD', (r) => ({
      text: `cdx-child-noise <result>${r.transcript.includes('cdx-caller-1') ? 'saw caller' : 'blind'}</result>`,
    }));
    s.on('CDX-BACK', (r) => ({
      text: `<reset input="${r.transcript.includes('cdx-child-noise') ? 'dirty' : 'clean'}">FRESH</reset>`,
    }));
    s.on('CDX-FRESH', (r) => ({
      text: `<fork next="END" w="1">WORK</fork><goto input="${r.transcript.includes('cdx-caller-1') ? 'kept' : 'fresh'}">END</goto>`,
    }));
    s.on('CDX-WORK', (r) => ({
      text: `<result>worker ${r.transcript.includes('cdx-caller-1') ? 'kept' : 'fresh'}</result>`,
    }));
    s.on('CDX-END', { text: '<result>end</result>' });
    const wf = box.write(
      {
        'workflow.yaml': CODEX,
        'START.md': 'CDX-CALLER',
        'CHILD.md': 'CDX-CHILD',
        'BACK.md': 'CDX-BACK {{input}}',
        'FRESH.md': 'CDX-FRESH {{input}}',
        'WORK.md': 'CDX-WORK',
        'END.md': 'CDX-END {{input}}',
      },
      'cdxcall',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'cdxcall']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main_work1, 'worker fresh');
    const back = s.requestsFor('CDX-BACK')[0]!.transcript;
    assert.doesNotMatch(back, /cdx-child-noise/, 'the caller never saw the callee');
    assert.match(back, /cdx-caller-1/, 'the caller went on in its own thread');
    assert.match(s.requestsFor('CDX-CHILD')[0]!.transcript, /cdx-caller-1/, 'the callee branched');
    assert.match(s.requestsFor('CDX-FRESH')[0]!.prompt, /clean/);
    assert.doesNotMatch(
      s.requestsFor('CDX-FRESH')[0]!.transcript,
      /cdx-caller-1/,
      'reset is fresh',
    );
    assert.match(s.requestsFor('CDX-END')[0]!.prompt, /fresh/, 'reset started a new thread');
  });

  it('<print> shows, and a prompt beginning with - and holding @file reaches the model as text', async () => {
    const s = box.server;
    s.on('@cdx-secret.txt', (r) => ({
      text: `<print>codex says hi</print><result>${r.transcript.includes('SECRET-CONTENT') ? 'leaked' : 'literal'}</result>`,
    }));
    const wf = box.write({ 'workflow.yaml': CODEX, 'START.md': '{{input}}' }, 'cdxat');
    box.write({ 'cdx-secret.txt': 'SECRET-CONTENT' });
    const r = await box.run([wf, '--json', '--input', '-x @cdx-secret.txt']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'literal');
    assert.match(s.requestsFor('@cdx-secret.txt')[0]!.prompt, /^-x @cdx-secret\.txt/);
    assert.match(r.stderr, /codex says hi/);
  });

  it('a YAML workflow selects codex too, and --budget stops a loop at the priced cost', async () => {
    box.server.on('CDX-LOOP', { text: '<goto>START</goto>' });
    const wf = join(
      box.write({
        'loop.yaml':
          'backend: { name: codex, options: { sandbox: read-only } }\nstates:\n  START:\n    prompt: CDX-LOOP\n',
      }),
      'loop.yaml',
    );
    const r = await box.run([wf, '--json', '--budget', '0.005']);
    assert.equal(r.code, 3, r.stderr);
    const out = summary(r);
    assert.equal(out.status, 'budget_exceeded');
    assert.ok(
      near(out.total_cost_usd, 3 * TURN_USD),
      `three turns, the third past the budget: ${out.total_cost_usd}`,
    );
  });

  it("a shell command runs inside the sandbox the state's grant allows, and is refused outside it", async () => {
    const s = box.server;
    const away = join(outside, 'escaped.txt');
    s.on('CDX-WRITE', (r) =>
      r.afterTool
        ? { text: `<goto>LOOK</goto>` }
        : { command: `touch cdx-inside.txt; touch ${away}; true` },
    );
    s.on('CDX-LOOK', (r) =>
      r.afterTool
        ? {
            text: `<result>${/Read-only file system/.test(r.toolOutput) ? 'refused' : 'wrote'}</result>`,
          }
        : { command: 'touch cdx-plan.txt' },
    );
    const wf = box.write(
      {
        'workflow.yaml': CODEX,
        'START.md': 'CDX-WRITE',
        'LOOK.md': '---\npermission_mode: plan\n---\nCDX-LOOK',
      },
      'cdxsandbox',
    );
    const r = await box.run([wf, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(
      existsSync(join(box.dir, 'cdx-inside.txt')),
      'workspace-write writes in the workspace',
    );
    assert.ok(!existsSync(away), 'and not outside it');
    assert.match(s.requestsFor('CDX-WRITE')[1]!.toolOutput, /Read-only file system/);
    assert.equal(summary(r).results.main, 'refused', 'plan is read-only, even inside');
    assert.ok(!existsSync(join(box.dir, 'cdx-plan.txt')));
  });

  it('a rate-limited turn is retried and the run completes', async () => {
    box.server.on('CDX-RATE', (_r, n) =>
      n === 1
        ? { status: 429, body: { error: { type: 'rate_limit_exceeded', message: 'slow down' } } }
        : { text: '<result>after the limit</result>' },
    );
    const wf = box.write({ 'workflow.yaml': CODEX, 'START.md': 'CDX-RATE' }, 'cdxrate');
    const r = await box.run([wf, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'after the limit');
    assert.equal(box.server.requestsFor('CDX-RATE').length, 2);
    // A refused rate narrows the account's width, said in one line; the 429 itself is a --verbose detail.
    assert.match(r.stderr, /codex: rate limited: \d+ at once, was \d+/);
    assert.doesNotMatch(r.stderr, /retrying \(1\/3\)/, 'not counted as a failed turn');
  });

  it('a missing codex is one line before any state runs', async () => {
    const wf = box.write({ 'workflow.yaml': CODEX, 'START.md': 'never' }, 'cdxmissing');
    const r = await box.run([wf, '--json'], { PATH: '/usr/bin:/bin' });
    assert.equal(r.code, 64);
    assert.match(r.stderr, /codex is not on PATH.*npm install -g @openai\/codex/);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.ok(!existsSync(join(box.dir, '.raymond/state/cdxmissing.json')));
  });

  it("lint checks a codex workflow's models, efforts and grants; --effort too", async () => {
    const good = '---\nmodel: gpt-5-codex\neffort: xhigh\n---\nHello <result>x</result>\n';
    const bad = '---\nmodel: sonnet 4\neffort: off\ntools: [Read]\n---\nHello <result>x</result>\n';
    const ok = await box.run([
      'lint',
      box.write({ 'workflow.yaml': CODEX, 'START.md': good }, 'lintcdx'),
    ]);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    const wrong = box.write({ 'workflow.yaml': CODEX, 'START.md': bad }, 'lintcdxbad');
    const no = await box.run(['lint', wrong]);
    assert.equal(no.code, 1, no.stdout + no.stderr);
    assert.match(no.stdout, /invalid-model: model "sonnet 4" is not a codex model name/);
    assert.match(
      no.stdout,
      /invalid-effort: effort "off" is not one of codex's reasoning levels none, minimal, low, medium, high, xhigh, max/,
    );
    assert.match(no.stdout, /unsupported-grant: tools: the codex backend cannot honour it/);
    const claudeEffort = await box.run([
      box.write({ 'workflow.yaml': CODEX, 'START.md': 'never' }, 'cdxeffort'),
      '--effort',
      'off',
    ]);
    assert.equal(claudeEffort.code, 64);
    assert.match(
      claudeEffort.stderr,
      /--effort: effort "off" is not one of codex's reasoning levels.*\(this workflow runs on Codex\)/,
    );
  });
});
