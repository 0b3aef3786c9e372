import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT, summary } from '../../helpers/cli.js';
import { makeZip } from '../../helpers/make-zip.js';
import { PI_TURN_USD, PiSandbox } from '../../helpers/pi-sandbox.js';

const box = new PiSandbox();
before(() => box.start());
after(() => box.stop());

const PI = 'backend: pi\n';
const near = (a: number, b: number) => Math.abs(a - b) < 1e-9;

describe('backend: pi, with the real pi and the scripted API', () => {
  it('a <goto> chain keeps the conversation, and the cost is the sum of the turns', async () => {
    const s = box.server;
    s.on('PI-GOTO-1', { text: 'pi-marker-77 <goto>TWO</goto>' });
    s.on('PI-GOTO-2', (r) => ({
      text: `<result>${r.transcript.includes('pi-marker-77') ? 'remembered' : 'forgot'}</result>`,
    }));
    const wf = box.write(
      { 'workflow.yaml': PI, 'START.md': 'PI-GOTO-1', 'TWO.md': 'PI-GOTO-2' },
      'pigoto',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'pigoto']);
    assert.equal(r.code, 0, r.stderr);
    const out = summary(r);
    assert.equal(out.results.main, 'remembered');
    assert.ok(near(out.total_cost_usd, 2 * PI_TURN_USD), `cost ${out.total_cost_usd}`);
    assert.ok(s.requestsFor('PI-GOTO-2')[0]!.messageCount > 1);
  });

  it('<call> branches and the caller stays clean; <reset> and forked workers start fresh', async () => {
    const s = box.server;
    s.on('PI-CALLER', { text: 'pi-caller-1 <call return="BACK">CHILD</call>' });
    s.on('PI-CHILD', (r) => ({
      text: `pi-child-noise <result>${r.transcript.includes('pi-caller-1') ? 'saw caller' : 'blind'}</result>`,
    }));
    s.on('PI-BACK', (r) => ({
      text: `<reset input="${r.transcript.includes('pi-child-noise') ? 'dirty' : 'clean'}">FRESH</reset>`,
    }));
    s.on('PI-FRESH', (r) => ({
      text: `<fork next="END" w="1">WORK</fork><goto input="${r.transcript.includes('pi-caller-1') ? 'kept' : 'fresh'}">END</goto>`,
    }));
    s.on('PI-WORK', (r) => ({
      text: `<result>worker ${r.transcript.includes('pi-caller-1') ? 'kept' : 'fresh'}</result>`,
    }));
    s.on('PI-END', { text: '<result>end</result>' });
    const wf = box.write(
      {
        'workflow.yaml': PI,
        'START.md': 'PI-CALLER',
        'CHILD.md': 'PI-CHILD',
        'BACK.md': 'PI-BACK {{input}}',
        'FRESH.md': 'PI-FRESH {{input}}',
        'WORK.md': 'PI-WORK',
        'END.md': 'PI-END {{input}}',
      },
      'picall',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'picall']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main_work1, 'worker fresh');
    assert.doesNotMatch(
      s.requestsFor('PI-BACK')[0]!.transcript,
      /pi-child-noise/,
      'the caller never saw the callee',
    );
    assert.match(
      s.requestsFor('PI-BACK')[0]!.transcript,
      /pi-caller-1/,
      'the caller went on in its own session',
    );
    assert.match(
      s.requestsFor('PI-CHILD')[0]!.transcript,
      /pi-caller-1/,
      'the callee branched from the caller',
    );
    assert.match(s.requestsFor('PI-FRESH')[0]!.prompt, /clean/);
    assert.doesNotMatch(
      s.requestsFor('PI-FRESH')[0]!.transcript,
      /pi-caller-1/,
      'reset started fresh',
    );
  });

  it('<print> from a pi state shows, and a prompt beginning with @ reaches the model as text', async () => {
    const s = box.server;
    s.on('@secret.txt', (r) => ({
      text: `<print>pi says hi</print><result>${r.transcript.includes('SECRET-CONTENT') ? 'leaked' : 'literal'}</result>`,
    }));
    const wf = box.write({ 'workflow.yaml': PI, 'START.md': '{{input}}' }, 'piat');
    box.write({ 'secret.txt': 'SECRET-CONTENT' });
    const r = await box.run([wf, '--json', '--input', '@secret.txt']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'literal');
    assert.match(r.stderr, /pi says hi/);
  });

  it('a YAML workflow selects pi too, and a budget stops a loop', async () => {
    const s = box.server;
    s.on('PI-LOOP', { text: '<goto>START</goto>' });
    const wf = join(
      box.write({
        'loop.yaml':
          'backend: { name: pi, options: { thinking: low } }\nstates:\n  START:\n    prompt: PI-LOOP\n',
      }),
      'loop.yaml',
    );
    const r = await box.run([wf, '--json', '--budget', '0.01']);
    assert.equal(r.code, 3, r.stderr);
    const out = summary(r);
    assert.equal(out.status, 'budget_exceeded');
    assert.ok(
      near(out.total_cost_usd, 3 * PI_TURN_USD),
      `three turns, the third past the budget: ${out.total_cost_usd}`,
    );
  });

  it("a state's tools: are pi's tools for that state alone; mcp_servers is refused by lint and at start with one line", async () => {
    const s = box.server;
    s.on('PI-TOOLS-1', (r) =>
      r.afterTool
        ? { text: '<goto>TWO</goto>' }
        : { toolUse: { name: 'bash', input: { command: 'touch pi-blocked.txt' } } },
    );
    s.on('PI-TOOLS-2', { text: '<result>ok</result>' });
    const wf = box.write(
      {
        'workflow.yaml': PI,
        'START.md': '---\ntools: [Read, Glob]\n---\nPI-TOOLS-1',
        'TWO.md': 'PI-TOOLS-2',
      },
      'pitools',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'pitools']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(s.requestsFor('PI-TOOLS-1')[0]!.tools.sort(), ['find', 'read']);
    assert.match(
      r.stderr,
      /\[main\] denied: bash\(touch pi-blocked\.txt\)/,
      'a call outside the tools is reported as denied',
    );
    assert.deepEqual(
      (
        JSON.parse(r.stdout) as { permission_denials: Array<{ tool: string }> }
      ).permission_denials.map((d) => d.tool),
      ['bash'],
    );
    assert.ok(
      s.requestsFor('PI-TOOLS-2')[0]!.tools.includes('edit'),
      "the next state has the workflow's tools again",
    );

    const mcp = box.write(
      {
        'workflow.yaml': PI,
        'START.md': '<goto>GH</goto>',
        'GH.md': '---\nmcp_servers: { gh: { command: gh-mcp } }\n---\nnever <result>x</result>',
      },
      'pimcp',
    );
    const lint = await box.run(['lint', mcp]);
    assert.equal(lint.code, 1, lint.stdout + lint.stderr);
    assert.match(
      lint.stdout,
      /GH\.md: error unsupported-grant: mcp_servers: the pi backend cannot honour it \(pi has no MCP servers\)/,
    );
    const start = await box.run([mcp]);
    assert.equal(start.code, 64, start.stderr);
    assert.match(
      start.stderr,
      /GH\.md: mcp_servers: the pi backend cannot honour it \(pi has no MCP servers\)/,
    );
    assert.equal(start.stderr.trim().split('\n').length, 1, start.stderr);
  });

  it('a missing pi is one line before any state runs', async () => {
    const wf = box.write({ 'workflow.yaml': PI, 'START.md': 'never' }, 'pimissing');
    const r = await box.run([wf, '--json'], { PATH: '/usr/bin:/bin' });
    assert.equal(r.code, 64);
    assert.match(
      r.stderr,
      /pi is not on PATH, and this workflow runs on pi \(backend: pi\): install it with npm install -g @earendil-works\/pi-coding-agent/,
    );
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  });

  it('lint takes pi models and efforts in a pi workflow and refuses them in a Claude one; --model too', async () => {
    const state = '---\nmodel: openai/gpt-5\neffort: xhigh\n---\nHello <result>x</result>\n';
    const pi = box.write({ 'workflow.yaml': PI, 'START.md': state }, 'lintpi');
    const claude = box.write({ 'START.md': state }, 'lintclaude');
    const onPi = await box.run(['lint', pi, '--json']);
    assert.equal(onPi.code, 0, onPi.stdout + onPi.stderr);
    assert.doesNotMatch(onPi.stdout, /invalid-model|invalid-effort/);
    const onClaude = await box.run(['lint', claude, '--json']);
    assert.equal(onClaude.code, 1);
    assert.match(onClaude.stdout, /invalid-model/);
    assert.match(onClaude.stdout, /invalid-effort/);
    const flag = await box.run([claude, '--model', 'openai/gpt-5']);
    assert.equal(flag.code, 64);
    assert.match(flag.stderr, /--model: model "openai\/gpt-5" is not /);
  });

  it('the bundled pi example runs', async () => {
    const s = box.server;
    s.on('write a three-line review', { text: 'does things\nclear\nno tests <goto>CHECK</goto>' });
    s.on('Look at your review above', (r) => ({
      text: `<result>${r.transcript.includes('no tests') ? 'does things / clear / no tests' : 'lost'}</result>`,
    }));
    box.write({ 'notes.txt': 'some file\n' });
    const r = await box.run([
      join(ROOT, 'workflows/examples/pi-review'),
      '--input',
      'notes.txt',
      '--json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'does things / clear / no tests');
  });

  it('a zip with workflow.yaml selects pi, and --continue-session forks the newest pi session of the folder', async () => {
    const s = box.server;
    s.on('PI-ZIP', { text: 'zip-marker-3 <result>zipped</result>' });
    s.on('PI-CONT', (r) => ({
      text: `<result>${r.transcript.includes('zip-marker-3') ? 'continued' : 'fresh'}</result>`,
    }));
    box.write({
      'pz.zip': makeZip([
        { name: 'workflow.yaml', content: PI },
        { name: 'START.md', content: 'PI-ZIP' },
      ]),
    });
    const zipped = await box.run([join(box.dir, 'pz.zip'), '--json']);
    assert.equal(zipped.code, 0, zipped.stderr);
    assert.equal(summary(zipped).results.main, 'zipped');
    assert.ok(near(summary(zipped).total_cost_usd, PI_TURN_USD), 'priced by pi');
    const next = box.write({ 'workflow.yaml': PI, 'START.md': 'PI-CONT' }, 'picont');
    const r = await box.run([next, '--json', '--continue-session']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'continued');
  });

  it('an unknown backend is one line naming the file', async () => {
    const wf = box.write({ 'workflow.yaml': 'backend: gemini\n', 'START.md': 'x' }, 'pibad');
    const r = await box.run([wf]);
    assert.equal(r.code, 64);
    assert.match(
      r.stderr,
      /pibad\/workflow\.yaml: backend: unknown backend "gemini"; known: claude, codex, pi/,
    );
  });
});
