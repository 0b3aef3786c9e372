import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { summary } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

describe('<ask> on markdown states, with the real claude binary', () => {
  it("the answer's state continues the conversation that asked, with the answer as {{input}} and {{ask_id}} bound; a policy entry allows it", async () => {
    const s = box.server;
    s.on('ASK-PLAN', {
      text: 'plan-marker-41: refactor in three steps. <ask next="BUILD">Approve the plan?</ask>',
    });
    s.on('ASK-BUILD', (r) => ({
      text: `<result>${r.transcript.includes('plan-marker-41') ? 'remembered' : 'forgot'} ${r.prompt.includes('answer: approve') ? 'got-answer' : 'no-answer'}</result>`,
    }));
    const wf = box.write(
      {
        'START.md':
          '---\nallowed_transitions:\n  - { tag: ask, next: BUILD }\n---\nASK-PLAN: make a plan and ask for approval',
        'BUILD.md':
          '---\nallowed_transitions:\n  - { tag: result }\n---\nASK-BUILD answer: {{input}} (ask {{ask_id}})',
      },
      'plan',
    );
    const first = await box.run([wf, '--on-ask=pause', '--workflow-id', 'mdask']);
    assert.equal(first.code, 2, first.stderr);
    const asking = JSON.parse(first.stdout) as { asking: { ask_id: string; prompt: string } };
    assert.equal(asking.asking.prompt, 'Approve the plan?');
    const session = box.state('mdask').agents[0]!.session;
    assert.match(session!, /^[0-9a-f-]{36}$/);

    const done = await box.run(['--resume', 'mdask', '--input', 'approve', '--json']);
    assert.equal(done.code, 0, done.stderr);
    assert.equal(summary(done).results.main, 'remembered got-answer');
    const [build] = s.requestsFor('ASK-BUILD');
    assert.ok(build!.prompt.includes(`(ask ${asking.asking.ask_id})`), build!.prompt);
    assert.equal(
      box.state('mdask').agents[0]!.session,
      session,
      'the same session went on, as for <goto>',
    );
  });

  it('a state whose policy does not allow <ask> is reminded, and nobody is asked', async () => {
    const s = box.server;
    let n = 0;
    s.on('NOASK', () => ({
      text: ++n === 1 ? '<ask next="START">may I?</ask>' : '<result>fine</result>',
    }));
    const wf = box.write(
      { 'START.md': '---\nallowed_transitions:\n  - { tag: result }\n---\nNOASK' },
      'noask',
    );
    const r = await box.run([wf, '--on-ask=pause', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'fine');
    assert.match(
      r.stderr,
      /emitted <ask next="START">\.\.\.<\/ask>, which allowed_transitions does not allow/,
    );
  });
});
