import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sh, summary } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

const POLICY =
  '---\nallowed_transitions:\n  - { tag: goto, target: NEXT }\n  - { tag: result }\n---\n';

describe('allowed_transitions, reminders and implicit transitions', () => {
  it('reminders recover from a missing tag and then from a disallowed one, in the same session', async () => {
    const s = box.server;
    s.on('REMIND-ME', (_r, n) => ({
      text: n === 1 ? 'I forgot the tag' : n === 2 ? '<goto>ELSEWHERE</goto>' : '<goto>NEXT</goto>',
    }));
    s.on('NEXT-STATE', { text: '<result>reached next</result>' });
    const wf = box.write(
      { 'START.md': `${POLICY}REMIND-ME`, 'NEXT.md': 'NEXT-STATE', 'ELSEWHERE.md': 'never' },
      'remind',
    );
    const r = await box.run([wf, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'reached next');
    const asks = s.requestsFor('REMIND-ME');
    assert.equal(asks.length, 3);
    assert.ok(
      asks[1]!.messageCount > asks[0]!.messageCount &&
        asks[2]!.messageCount > asks[1]!.messageCount,
      're-prompted in the same session',
    );
    assert.match(
      asks[1]!.prompt,
      /Reminder: your previous reply could not be used \(output has no transition tag/,
    );
    assert.match(asks[1]!.prompt, /- <goto>NEXT<\/goto>\n- <result>\.\.\.<\/result>/);
    assert.match(
      asks[2]!.prompt,
      /emitted <goto>ELSEWHERE<\/goto>, which allowed_transitions does not allow/,
    );
    assert.match(r.stderr, /reminding \(1\/3\)/);
    assert.match(r.stderr, /reminding \(2\/3\)/);
  });

  it('a misspelt tag is named in the reminder, which lists only what allowed_transitions allows', async () => {
    const s = box.server;
    s.on('TYPO-TAG', (_r, n) => ({
      text: n === 1 ? '<reslt>done</reslt>' : n === 2 ? 'done, no tag' : '<result>done</result>',
    }));
    const wf = box.write(
      { 'START.md': '---\nallowed_transitions:\n  - { tag: result }\n---\nTYPO-TAG' },
      'typo',
    );
    const r = await box.run([wf, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'done');
    const asks = s.requestsFor('TYPO-TAG');
    assert.match(
      asks[1]!.prompt,
      /could not be used \(unknown tag `<reslt>`: did you mean `<result>`\?\)/,
    );
    assert.match(
      asks[2]!.prompt,
      /could not be used \(output has no transition tag \(expected <result>\.\.\.<\/result>\)\)/,
    );
    for (const ask of asks.slice(1))
      assert.doesNotMatch(ask.prompt, /<goto>|<fork>|<join>|-workflow>/, 'only what is allowed');
  });

  it('an unresolvable target also gets a reminder', async () => {
    const s = box.server;
    s.on('BAD-TARGET', (_r, n) => ({
      text: n === 1 ? '<goto>NEXT</goto>' : '<result>fixed</result>',
    }));
    // NEXT is allowed by policy, but no NEXT state exists in this scope.
    const wf = box.write({ 'START.md': `${POLICY}BAD-TARGET` }, 'unresolvable');
    const r = await box.run([wf, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'fixed');
    assert.match(s.requestsFor('BAD-TARGET')[1]!.prompt, /target "NEXT" matches no state/);
  });

  it('after three reminders the agent fails, saying what was emitted and what was allowed', async () => {
    box.server.on('NEVER-TAGS', { text: '<goto>../escape</goto>' });
    const wf = box.write({ 'START.md': `${POLICY}NEVER-TAGS`, 'NEXT.md': 'x' }, 'exhaust');
    const r = await box.run([wf, '--json', '--workflow-id', 'exhaust']);
    assert.equal(r.code, 1);
    assert.equal(box.server.requestsFor('NEVER-TAGS').length, 4);
    const error = summary(r).error!;
    assert.match(
      error,
      /exhaust\/START\.md: still no usable transition after 3 reminders: <goto> target "\.\.\/escape" is a path.*; allowed: <goto>NEXT<\/goto>, <result>\.\.\.<\/result>$/,
    );
    assert.equal(box.state('exhaust').status, 'failed');
  });

  it('without allowed_transitions a missing tag is fatal at once', async () => {
    box.server.on('NO-POLICY', { text: 'done, no tag' });
    const wf = box.write({ 'START.md': 'NO-POLICY' }, 'nopolicy');
    const r = await box.run([wf, '--json']);
    assert.equal(r.code, 1);
    assert.equal(box.server.requestsFor('NO-POLICY').length, 1);
    assert.match(summary(r).error!, /START\.md: output has no transition tag/);
  });

  it('a single allowed non-result transition is taken when no tag is emitted', async () => {
    box.server.on('IMPLICIT-1', { text: 'I wrote the plan.' });
    box.server.on('IMPLICIT-2', (r) => ({
      text: `<result>${r.messageCount > 2 ? 'same session' : 'fresh'}</result>`,
    }));
    const wf = box.write(
      {
        'START.md':
          '---\nallowed_transitions:\n  - { tag: goto, target: REVIEW.md }\n---\nIMPLICIT-1',
        'REVIEW.md': 'IMPLICIT-2',
      },
      'implicit',
    );
    const r = await box.run([wf, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'same session');
  });

  it('a fork carrying an attribute its entry does not list is refused and reminded, and the worker never gets it', async () => {
    const s = box.server;
    const payload = join(box.dir, 'payload.sh');
    s.on('PINNED-FORK', (_r, n) => ({
      text:
        n === 1
          ? `<fork next="DONE" item="a" BASH_ENV="${payload}">WORKER</fork>`
          : '<fork next="DONE" item="a">WORKER</fork>',
    }));
    const policy =
      '---\nallowed_transitions:\n  - { tag: fork, target: WORKER, next: DONE, attributes: [item] }\n---\n';
    const wf = box.write(
      {
        'START.md': `${policy}PINNED-FORK`,
        'WORKER.sh': sh(
          'echo "<result>item=$item bash_env=${RAYMOND_ATTR_BASH_ENV-unset}</result>"',
        ),
        'DONE.sh': sh('echo "<result>done</result>"'),
      },
      'pinned',
    );
    box.write({ 'payload.sh': `touch "${join(box.dir, 'pwned')}"\n` });
    const r = await box.run([wf, '--json', '--workflow-id', 'pinned']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(summary(r).results, { main: 'done', main_worker1: 'item=a bash_env=unset' });
    const asks = s.requestsFor('PINNED-FORK');
    assert.equal(asks.length, 2);
    assert.match(
      asks[1]!.prompt,
      /emitted <fork next="DONE" item="a" BASH_ENV="[^"]*payload\.sh">WORKER<\/fork>, which allowed_transitions does not allow: attributes not in the entry's attributes list: BASH_ENV/,
    );
    assert.match(asks[1]!.prompt, /- <fork next="DONE" item="\.\.\.">WORKER<\/fork>$/);
    assert.match(r.stderr, /reminding \(1\/3\)/);
    assert.deepEqual(box.state('pinned').agents.find((a) => a.id === 'main_worker1')!.attributes, {
      item: 'a',
    });
    assert.equal(existsSync(join(box.dir, 'pwned')), false);
  });

  it("ray's fixed-payload results: a listed payload is taken (it was refused as a policy violation), another is reminded, a single one is implicit", async () => {
    const s = box.server;
    s.on('FIXED-ASK', (_r, n) => ({
      text: n === 1 ? 'Checked. <result>MAYBE</result>' : 'Checked. <result> YES </result>',
    }));
    s.on('FIXED-DONE', { text: 'All processed, no tag needed.' });
    const wf = box.write(
      {
        'START.md':
          '---\nallowed_transitions:\n  - { tag: result, payload: "YES" }\n  - { tag: result, payload: "NO" }\n---\nFIXED-ASK: is it complete? Reply with <result>YES</result> or <result>NO</result>',
        'ONLY.md':
          '---\nallowed_transitions:\n  - { tag: result, payload: DONE }\n---\nFIXED-DONE: process the data',
      },
      'fixed',
    );
    const r = await box.run([wf, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, ' YES ');
    assert.match(
      s.requestsFor('FIXED-ASK')[1]!.prompt,
      /- <result>YES<\/result>\n- <result>NO<\/result>/,
    );
    const only = await box.run([join(wf, 'ONLY.md'), '--json']);
    assert.equal(only.code, 0, only.stderr);
    assert.equal(summary(only).results.main, 'DONE');
  });

  it('force_implicit takes the single transition and ignores the tags the reply talks about', async () => {
    const s = box.server;
    s.on('FORCED-TALK', {
      text: 'A <goto>ELSEWHERE</goto> tag moves an agent; <print>explained</print>',
    });
    s.on('FORCED-NEXT', { text: '<result>went to next</result>' });
    const wf = box.write(
      {
        'START.md':
          '---\nallowed_transitions:\n  - { tag: goto, target: NEXT }\nforce_implicit: true\n---\nFORCED-TALK: explain goto',
        'NEXT.md': 'FORCED-NEXT',
        'ELSEWHERE.md': 'never',
      },
      'forced',
    );
    const r = await box.run([wf, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'went to next');
    assert.match(r.stderr, /explained/);
    assert.equal(s.requestsFor('FORCED-TALK').length, 1, 'no reminder');
  });
});
