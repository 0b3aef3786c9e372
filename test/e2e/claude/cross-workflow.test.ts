import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { summary } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

/** Fresh turns send 2 messages (a reminder and the prompt). */
const FRESH = 2;

describe('cross-workflow tags on markdown states, with the real claude binary', () => {
  it("<call-workflow> branches the caller's session into the callee; the caller resumes its own, without the callee's turns", async () => {
    const s = box.server;
    s.on('XW-CALLER', {
      text: 'xw-caller-mark <call-workflow return="AFTER" input="from caller">../lib/</call-workflow>',
    });
    s.on('XW-LIB-1', { text: 'xw-lib-noise <goto>MORE</goto>' });
    s.on('XW-LIB-2', { text: '<result>lib answer</result>' });
    s.on('XW-AFTER', (r) => ({
      text: `<result>after: ${r.prompt.includes('lib answer') ? 'got it' : 'nothing'}</result>`,
    }));
    box.write({ 'START.md': 'XW-LIB-1: input {{input}}', 'MORE.md': 'XW-LIB-2' }, 'xcall/lib');
    const wf = box.write(
      { 'START.md': 'XW-CALLER', 'AFTER.md': 'XW-AFTER: {{input}}' },
      'xcall/main',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'xcall']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'after: got it');
    const [lib1] = s.requestsFor('XW-LIB-1');
    assert.match(lib1!.prompt, /input from caller/);
    assert.match(lib1!.transcript, /xw-caller-mark/, 'the callee branched from the caller');
    const [lib2] = s.requestsFor('XW-LIB-2');
    assert.match(lib2!.transcript, /xw-lib-noise/, 'a goto inside the callee keeps its branch');
    const [back] = s.requestsFor('XW-AFTER');
    assert.match(back!.transcript, /xw-caller-mark/, "the caller's session was resumed");
    assert.doesNotMatch(
      back!.transcript,
      /xw-lib-noise/,
      "the caller never sees the callee's turns",
    );
  });

  it('<function-workflow> and <fork-workflow> start fresh sessions', async () => {
    const s = box.server;
    s.on('XF-CALLER', {
      text: 'xf-caller-mark <function-workflow return="FORKS">../eval/</function-workflow>',
    });
    s.on('XF-EVAL', { text: '<result>YES</result>' });
    s.on('XF-FORKS', {
      text: 'xf-forks-mark <fork-workflow next="END" input="w">../eval/WORK</fork-workflow>',
    });
    s.on('XF-WORK', { text: '<result>worked</result>' });
    s.on('XF-END', { text: '<result>end</result>' });
    box.write({ 'START.md': 'XF-EVAL', 'WORK.md': 'XF-WORK {{input}}' }, 'xfn/eval');
    const wf = box.write(
      { 'START.md': 'XF-CALLER', 'FORKS.md': 'XF-FORKS {{input}}', 'END.md': 'XF-END' },
      'xfn/main',
    );
    const r = await box.run([wf, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(summary(r).results, { main: 'end', main_eval1: 'worked' });
    const [evaluation] = s.requestsFor('XF-EVAL');
    assert.equal(evaluation!.messageCount, FRESH);
    assert.doesNotMatch(evaluation!.transcript, /xf-caller-mark/);
    const [forks] = s.requestsFor('XF-FORKS');
    assert.match(
      forks!.transcript,
      /xf-caller-mark/,
      "the function's result resumed the caller's session",
    );
    const [work] = s.requestsFor('XF-WORK');
    assert.equal(work!.messageCount, FRESH);
    assert.doesNotMatch(work!.transcript, /xf-forks-mark/);
  });

  it('a state that allows only <call> cannot emit <call-workflow>: it is reminded, and the callee never runs', async () => {
    const s = box.server;
    let replies = 0;
    s.on('XP-STATE', () =>
      ++replies === 1
        ? { text: '<call-workflow return="AFTER">../lib/</call-workflow>' }
        : { text: '<call return="AFTER">LOCAL</call>' },
    );
    s.on('XP-LOCAL', { text: '<result>local</result>' });
    s.on('XP-AFTER', { text: '<result>policy kept</result>' });
    s.on('XP-LIB', { text: '<result>lib ran: wrong</result>' });
    box.write({ 'START.md': 'XP-LIB' }, 'xpol/lib');
    const wf = box.write(
      {
        'START.md':
          '---\nallowed_transitions:\n  - { tag: call, target: LOCAL, return: AFTER }\n  - { tag: result }\n---\nXP-STATE',
        'LOCAL.md': 'XP-LOCAL',
        'AFTER.md': 'XP-AFTER',
      },
      'xpol/main',
    );
    const r = await box.run([wf, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'policy kept');
    assert.match(
      r.stderr,
      /emitted <call-workflow return="AFTER">\.\.\/lib\/<\/call-workflow>, which allowed_transitions does not allow/,
    );
    assert.equal(s.requestsFor('XP-LIB').length, 0);
    const [second] = s.requestsFor('XP-STATE').slice(1);
    assert.match(
      second!.prompt,
      /<call return="AFTER">LOCAL<\/call>/,
      'the reminder lists what is allowed',
    );
  });
});
