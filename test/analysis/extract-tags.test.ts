import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hasPlaceholder, scanPrompt, scanScript } from '../../src/analysis/extract-tags.js';

// Attributes come in null-prototype objects; spread them to compare with literals.
const brief = (text: string, scan = scanScript) =>
  scan(text).tags.map((t) => ({
    tag: t.tag,
    body: t.body,
    attributes: { ...t.attributes },
    dynamic: t.dynamic,
  }));

describe('tags in scripts', () => {
  it('reads echo with escaped quotes as the tag it prints', () => {
    assert.deepEqual(brief('echo "<fork next=\\"DONE.sh\\" fruit=\\"$fruit\\">WORKER.sh</fork>"'), [
      {
        tag: 'fork',
        body: 'WORKER.sh',
        attributes: { next: 'DONE.sh', fruit: '$fruit' },
        dynamic: ['fruit'],
      },
    ]);
  });

  it('reads printf formats and single quotes', () => {
    assert.deepEqual(brief(`printf '<fork next="END" i="%s">W1</fork>\\n' "$i"`), [
      { tag: 'fork', body: 'W1', attributes: { next: 'END', i: '%s' }, dynamic: ['i'] },
    ]);
  });

  it('marks targets built from shell variables as dynamic, in every spelling', () => {
    for (const target of [
      '$next',
      '${next}',
      '$(cat next.txt)',
      '`cat next.txt`',
      '${prefix}_B.sh',
      '%s',
    ]) {
      const [tag] = scanScript(`echo "<goto>${target}</goto>"`).tags;
      assert.equal(tag?.body, target);
      assert.deepEqual(tag?.dynamic, ['body'], target);
    }
    assert.deepEqual(scanScript('echo "<call return=\\"$after\\">CHILD</call>"').tags[0]?.dynamic, [
      'return',
    ]);
  });

  it('skips comment lines, which describe tags without printing them', () => {
    const text = [
      '#!/usr/bin/env bash',
      '# <call> pushes a frame; its <result> comes back',
      '  # <goto>OLD.sh</goto>',
      'echo \'<call return="B.sh">C</call>\'',
    ].join('\n');
    assert.deepEqual(
      brief(text).map((t) => t.tag),
      ['call'],
    );
  });

  it('keeps a <result> payload opaque and skips <print>', () => {
    const text =
      'echo "<print>loops with <reset></print>"\necho "<result>$(head -n 1 x.txt) <goto>NOT.sh</goto></result>"';
    assert.deepEqual(brief(text), [
      {
        tag: 'result',
        body: '$(head -n 1 x.txt) <goto>NOT.sh</goto>',
        attributes: {},
        dynamic: [],
      },
    ]);
  });

  it('reports tags that do not parse, one message each, and keeps the others', () => {
    const scan = scanScript(
      `echo '<goto after=>A.sh</goto>'\necho '<reset>../up.sh</reset>'\necho '<goto>B.sh</goto>'`,
    );
    assert.deepEqual(
      scan.tags.map((t) => t.body),
      ['B.sh'],
    );
    assert.equal(scan.errors.length, 2);
    assert.match(scan.errors[0]!, /^malformed attributes in <goto after=>/);
    assert.match(scan.errors[1]!, /<reset> target "\.\.\/up\.sh" is a path/);
  });

  it('reads attribute values holding < and >, and never a tag inside one', () => {
    assert.deepEqual(brief('echo "<goto input=\\"<result>a > b</result>\\">NEXT.sh</goto>"'), [
      {
        tag: 'goto',
        body: 'NEXT.sh',
        attributes: { input: '<result>a > b</result>' },
        dynamic: [],
      },
    ]);
  });

  it('keeps attribute names such as __proto__ and toString as own keys', () => {
    const [tag] = scanScript(`echo '<fork next="D" toString="t" __proto__="p">W</fork>'`).tags;
    assert.equal(Object.getPrototypeOf(tag!.attributes), null);
    assert.deepEqual(Object.entries(tag!.attributes), [
      ['next', 'D'],
      ['toString', 't'],
      ['__proto__', 'p'],
    ]);
  });
});

describe('tags in prompts', () => {
  it('finds the tags a prompt asks for, with {{placeholders}} as dynamic', () => {
    const body =
      'Reply with <function return="ROUTE.md" input="{{input}}">CLASSIFY.md</function>, or <goto>{{next}}</goto>.';
    assert.deepEqual(brief(body, scanPrompt), [
      {
        tag: 'function',
        body: 'CLASSIFY.md',
        attributes: { return: 'ROUTE.md', input: '{{input}}' },
        dynamic: ['input'],
      },
      { tag: 'goto', body: '{{next}}', attributes: {}, dynamic: ['body'] },
    ]);
  });

  it('does not read prose that mentions a tag as a tag', () => {
    const body = [
      'End with a transition tag (<goto>, <reset> or <result>). The <goto> tag',
      'continues the session. When done, reply with <goto>NEXT.md</goto>;',
      'a <result> ends the agent: <result>summary</result>',
    ].join('\n');
    assert.deepEqual(
      brief(body, scanPrompt).map((t) => `${t.tag}:${t.body}`),
      ['goto:NEXT.md', 'result:summary'],
    );
  });

  it('leaves $ alone in prompts', () => {
    assert.deepEqual(scanPrompt('<goto>$NEXT</goto>').tags[0]?.dynamic, []);
    assert.equal(hasPlaceholder('{{target}}.md'), true);
    assert.equal(hasPlaceholder('NEXT.md'), false);
  });
});
