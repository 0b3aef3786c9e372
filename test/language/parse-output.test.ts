import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decide } from '../../src/language/decide.js';
import { parseOutput } from '../../src/language/parse-output.js';
import { RaymondError, formatError } from '../../src/errors.js';
import type { Decision } from '../../machines/types.js';

const F = 'wf/STATE.md';

function decision(text: string): Decision {
  return decide(parseOutput(text, F).tags, F);
}

function fails(text: string, code: string, pattern?: RegExp): void {
  assert.throws(
    () => decision(text),
    (err: unknown) => {
      assert.ok(err instanceof RaymondError, `expected RaymondError, got ${String(err)}`);
      assert.equal(err.code, code);
      assert.ok(formatError(err).startsWith(`${F}: `), formatError(err));
      if (pattern) assert.match(formatError(err), pattern);
      return true;
    },
  );
}

describe('parseOutput + decide: accepted outputs', () => {
  const cases: Array<[string, string, Decision]> = [
    ['bare goto', '<goto>NEXT.md</goto>', { kind: 'goto', target: 'NEXT.md', input: undefined }],
    [
      'tag in prose',
      'All good.\nI am done: <goto>NEXT</goto> thanks',
      { kind: 'goto', target: 'NEXT', input: undefined },
    ],
    [
      'tag first, prose after',
      '<reset>PLAN.md</reset>\n\nMore words.',
      { kind: 'reset', target: 'PLAN.md', input: undefined, cd: undefined, worktree: undefined },
    ],
    [
      'whitespace around target',
      '<goto>  NEXT.md \n</goto>',
      { kind: 'goto', target: 'NEXT.md', input: undefined },
    ],
    [
      'CRLF output',
      'line one\r\n<goto>NEXT.md</goto>\r\n',
      { kind: 'goto', target: 'NEXT.md', input: undefined },
    ],
    [
      'double-quoted attributes',
      '<call return="AFTER.md" input="x y">CHILD.md</call>',
      { kind: 'call', target: 'CHILD.md', returnTo: 'AFTER.md', input: 'x y' },
    ],
    [
      'single-quoted attributes',
      "<function return='AFTER' input='say \"hi\"'>EVAL</function>",
      { kind: 'function', target: 'EVAL', returnTo: 'AFTER', input: 'say "hi"' },
    ],
    [
      'reset with cd',
      '<reset cd="../w">IMPL.md</reset>',
      { kind: 'reset', target: 'IMPL.md', input: undefined, cd: '../w', worktree: undefined },
    ],
    [
      'goto with input',
      '<goto input="42">NEXT.sh</goto>',
      { kind: 'goto', target: 'NEXT.sh', input: '42' },
    ],
    [
      'result payload as written',
      '<result>  two\n lines <b>bold</b> </result>',
      { kind: 'result', payload: '  two\n lines <b>bold</b> ' },
    ],
    ['empty result', '<result></result>', { kind: 'result', payload: '' }],
    [
      'tag inside result payload is payload',
      '<result>said <goto>X.md</goto></result>',
      { kind: 'result', payload: 'said <goto>X.md</goto>' },
    ],
    [
      'fork with attributes',
      '<fork next="NEXT.md" item="a b" cd="sub" input="in">WORKER.md</fork>',
      {
        kind: 'fork',
        next: 'NEXT.md',
        nextInput: undefined,
        workers: [
          {
            target: 'WORKER.md',
            attributes: { item: 'a b' },
            cd: 'sub',
            input: 'in',
            worktree: undefined,
          },
        ],
      },
    ],
    [
      'multi-fork with agreeing next',
      '<fork next="N" item="1">W</fork>\n<fork next="N" item="2">W</fork>',
      {
        kind: 'fork',
        next: 'N',
        nextInput: undefined,
        workers: [
          {
            target: 'W',
            attributes: { item: '1' },
            cd: undefined,
            input: undefined,
            worktree: undefined,
          },
          {
            target: 'W',
            attributes: { item: '2' },
            cd: undefined,
            input: undefined,
            worktree: undefined,
          },
        ],
      },
    ],
    [
      'multi-fork with one goto for the parent',
      '<fork item="1">W</fork><fork next="N" item="2">W</fork><goto input="p">N</goto>',
      {
        kind: 'fork',
        next: 'N',
        nextInput: 'p',
        workers: [
          {
            target: 'W',
            attributes: { item: '1' },
            cd: undefined,
            input: undefined,
            worktree: undefined,
          },
          {
            target: 'W',
            attributes: { item: '2' },
            cd: undefined,
            input: undefined,
            worktree: undefined,
          },
        ],
      },
    ],
    [
      'fork into a worktree from a base',
      '<fork next="N" worktree="pkg-a" base="v1.2" item="x">W</fork>',
      {
        kind: 'fork',
        next: 'N',
        nextInput: undefined,
        workers: [
          {
            target: 'W',
            attributes: { item: 'x' },
            cd: undefined,
            input: undefined,
            worktree: { name: 'pkg-a', base: 'v1.2' },
          },
        ],
      },
    ],
    [
      'reset into a worktree',
      '<reset worktree="w">IMPL</reset>',
      {
        kind: 'reset',
        target: 'IMPL',
        input: undefined,
        cd: undefined,
        worktree: { name: 'w', base: undefined },
      },
    ],
    [
      'sparse worktree: folders split on spaces, trailing slashes dropped, duplicates once',
      '<fork next="N" worktree="w" sparse="src/parser  src/shared/ src/parser" item="x">W</fork>',
      {
        kind: 'fork',
        next: 'N',
        nextInput: undefined,
        workers: [
          {
            target: 'W',
            attributes: { item: 'x' },
            cd: undefined,
            input: undefined,
            worktree: { name: 'w', base: undefined, sparse: ['src/parser', 'src/shared'] },
          },
        ],
      },
    ],
    [
      'sparse reset',
      '<reset worktree="w" sparse="docs">IMPL</reset>',
      {
        kind: 'reset',
        target: 'IMPL',
        input: undefined,
        cd: undefined,
        worktree: { name: 'w', base: undefined, sparse: ['docs'] },
      },
    ],
    [
      'prints are not transitions',
      '<print>hello</print><print> <goto>X</goto> </print><goto>NEXT</goto>',
      { kind: 'goto', target: 'NEXT', input: undefined },
    ],
  ];
  for (const [name, text, expected] of cases) {
    it(name, () => assert.deepEqual(decision(text), expected));
  }

  it('collects print contents in order', () => {
    assert.deepEqual(
      parseOutput('<print>one</print> x <print>\n two \n</print><goto>A</goto>', F).prints,
      ['one', 'two'],
    );
  });
});

describe('parseOutput + decide: refused outputs', () => {
  const cases: Array<[string, string, string, RegExp?]> = [
    ['no tag', 'I did the work.', 'ERR_TAG_MISSING'],
    ['only a print', '<print>hi</print>', 'ERR_TAG_MISSING'],
    ['two gotos', '<goto>A</goto><goto>B</goto>', 'ERR_TAG_MULTIPLE', /2 transition tags/],
    ['goto and result', '<goto>A</goto> <result>x</result>', 'ERR_TAG_MULTIPLE'],
    ['fork and reset', '<fork next="N">W</fork><reset>N</reset>', 'ERR_TAG_MULTIPLE'],
    [
      'fork with two gotos',
      '<fork next="N">W</fork><goto>N</goto><goto>N</goto>',
      'ERR_TAG_MULTIPLE',
    ],
    [
      'forks that disagree',
      '<fork next="A">W</fork><fork next="B">W</fork>',
      'ERR_TAG_PARSE',
      /disagree/,
    ],
    [
      'fork whose goto disagrees',
      '<fork next="A">W</fork><goto>B</goto>',
      'ERR_TAG_PARSE',
      /disagree/,
    ],
    ['fork without next', '<fork item="1">W</fork>', 'ERR_TAG_PARSE', /next=/],
    ['call without return', '<call>CHILD</call>', 'ERR_TAG_PARSE', /return=/],
    ['parent traversal', '<goto>../SECRET.md</goto>', 'ERR_TARGET_INVALID', /no \/ or \\/],
    ['subfolder', '<goto>foo/bar.md</goto>', 'ERR_TARGET_INVALID'],
    ['backslash', '<reset>..\\evil.md</reset>', 'ERR_TARGET_INVALID'],
    ['absolute', '<goto>/etc/passwd</goto>', 'ERR_TARGET_INVALID'],
    ['empty target', '<goto></goto>', 'ERR_TARGET_INVALID', /empty/],
    ['blank target', '<goto>   </goto>', 'ERR_TARGET_INVALID'],
    ['traversal in return', '<call return="../x.md">C</call>', 'ERR_TARGET_INVALID'],
    ['traversal in fork next', '<fork next="a/b">W</fork>', 'ERR_TARGET_INVALID'],
    ['unclosed tag', '<goto>NEXT.md', 'ERR_TAG_PARSE', /never closed/],
    ['unquoted attribute', '<call return=AFTER>C</call>', 'ERR_TAG_PARSE', /malformed/],
    [
      'base without worktree',
      '<fork next="N" base="v1">W</fork>',
      'ERR_TAG_PARSE',
      /base="v1" but no worktree/,
    ],
    [
      'sparse without worktree',
      '<fork next="N" sparse="src">W</fork>',
      'ERR_TAG_PARSE',
      /sparse="src" but no worktree/,
    ],
    [
      'sparse with nothing in it',
      '<fork next="N" worktree="w" sparse=" ">W</fork>',
      'ERR_TAG_PARSE',
      /sparse=" ": needs at least one folder/,
    ],
    [
      'sparse outside the repository',
      '<fork next="N" worktree="w" sparse="../up">W</fork>',
      'ERR_TAG_PARSE',
      /"\.\.\/up" must be a plain folder path inside the repository/,
    ],
    [
      'sparse absolute',
      '<reset worktree="w" sparse="/etc">A</reset>',
      'ERR_TAG_PARSE',
      /"\/etc" must be relative to the repository's top/,
    ],
    [
      'sparse pattern',
      '<fork next="N" worktree="w" sparse="src/*">W</fork>',
      'ERR_TAG_PARSE',
      /"src\/\*" is not a folder name git's cone mode takes/,
    ],
    [
      'cd and worktree together',
      '<reset cd="x" worktree="w">A</reset>',
      'ERR_TAG_PARSE',
      /both cd and worktree/,
    ],
    ['duplicate attribute', '<fork next="A" next="B">W</fork>', 'ERR_TAG_PARSE', /twice/],
  ];
  for (const [name, text, code, pattern] of cases) {
    it(name, () => fails(text, code, pattern));
  }

  it('refuses a traversal before looking at anything else', () => {
    // Even with a second tag present, the path error wins: nothing is resolved.
    fails('<goto>../x</goto><goto>B</goto>', 'ERR_TARGET_INVALID');
  });
});

describe('parseOutput: attribute values', () => {
  const goto = (text: string) =>
    parseOutput(text, F).tags.map((t) => ({
      tag: t.tag,
      body: t.body,
      attributes: { ...t.attributes },
    }));

  it('hold < and >, so a tag inside a value is never a tag', () => {
    assert.deepEqual(goto('<goto input="<result>injected</result>">NEXT</goto>'), [
      { tag: 'goto', body: 'NEXT', attributes: { input: '<result>injected</result>' } },
    ]);
    assert.deepEqual(goto(`<goto input='<goto>X</goto>'>NEXT</goto>`), [
      { tag: 'goto', body: 'NEXT', attributes: { input: '<goto>X</goto>' } },
    ]);
    assert.deepEqual(goto('<fork next="N" when="a > b" expr=\'x<y\'>W</fork>'), [
      { tag: 'fork', body: 'W', attributes: { next: 'N', when: 'a > b', expr: 'x<y' } },
    ]);
  });

  it('may span lines and hold the other quote', () => {
    assert.deepEqual(goto('<goto input="line 1\nsay \'hi\'\nline 3">NEXT</goto>'), [
      { tag: 'goto', body: 'NEXT', attributes: { input: "line 1\nsay 'hi'\nline 3" } },
    ]);
  });

  it('a value with no closing quote before a > is a malformed tag, in one line', () => {
    fails(
      '<goto input="abc>NEXT</goto>',
      'ERR_TAG_PARSE',
      /^wf\/STATE\.md: malformed attributes in <goto input="abc>: the value of input has no closing "$/,
    );
  });

  it('<NAME followed by prose is not a tag, and the scan goes on after it', () => {
    assert.deepEqual(goto('use <goto with care <goto input="x" y <goto>NEXT</goto>'), [
      { tag: 'goto', body: 'NEXT', attributes: {} },
    ]);
  });
});

describe('parseOutput: attribute names are ordinary keys', () => {
  const names = ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf'];
  const text = `<fork next="N" ${names.map((n, i) => `${n}="v${i}"`).join(' ')}>W</fork>`;

  it('accepts names that Object.prototype has, and keeps each as an own key', () => {
    const [tag] = parseOutput(text, F).tags;
    assert.equal(Object.getPrototypeOf(tag!.attributes), null);
    assert.deepEqual(Object.keys(tag!.attributes), ['next', ...names]);
    assert.equal(tag!.attributes.__proto__, 'v2');
    assert.equal(({} as Record<string, unknown>).v2, undefined);
    assert.equal(
      Object.prototype.toString.call({}),
      '[object Object]',
      'Object.prototype is untouched',
    );
  });

  it('passes them to the fork worker as its variables', () => {
    const d = decision(text);
    assert.equal(d.kind, 'fork');
    const attributes = d.kind === 'fork' ? d.workers[0]!.attributes : {};
    assert.deepEqual(
      Object.entries(attributes),
      names.map((n, i) => [n, `v${i}`]),
    );
  });

  it('still refuses a name given twice, __proto__ included', () => {
    fails(
      '<goto toString="1" toString="2">A</goto>',
      'ERR_TAG_PARSE',
      /attribute "toString" given twice in <goto>/,
    );
    fails(
      '<goto __proto__="1" __proto__="2">A</goto>',
      'ERR_TAG_PARSE',
      /attribute "__proto__" given twice in <goto>/,
    );
  });
});
