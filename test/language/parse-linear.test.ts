import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseOutput } from '../../src/language/parse-output.js';
import { scanScript } from '../../src/analysis/extract-tags.js';

// Each input is a few MB. A parser that backtracks over the text from every `<goto` (the old one
// took 56 s on 400 KB) would need hours on them, far past the timeout below; a linear one takes
// milliseconds. No timing is asserted: finishing at all, with the right tags, is the check.
const MB = 2 ** 20;
const TIMEOUT = { timeout: 60_000 };
const TAIL = '\n<goto>NEXT</goto>\n';

const adversarial: Array<[string, string]> = [
  ['<goto and a long run of spaces', `<goto${' '.repeat(4 * MB)}`],
  ['<goto, spaces, then a > much later', `x <print${' '.repeat(4 * MB)}>shown</print>`],
  ['many <goto and spaces', '<goto    '.repeat(MB / 2)],
  ['many <goto with an attribute and spaces', '<goto a="1"   '.repeat(MB / 3)],
  ['an unclosed double quote', `<goto a="${'x <b> '.repeat(MB)}`],
  [
    'an unclosed single quote after many tags',
    `${"<reset b='1' ".repeat(MB / 4)}<fork c='${' '.repeat(MB)}`,
  ],
  ['many <', '<'.repeat(4 * MB)],
  ['many unclosed <result and <print', '<result x<print y'.repeat(MB / 4)],
  ['many = and quotes after <call', `<call ${'a= '.repeat(MB)}`],
];

describe('parseOutput is linear in the output', () => {
  for (const [name, filler] of adversarial) {
    it(name, TIMEOUT, () => {
      const parsed = parseOutput(filler + TAIL, 'wf/STATE.sh');
      assert.deepEqual(
        parsed.tags.map((t) => [t.tag, t.body]),
        [['goto', 'NEXT']],
      );
    });
  }

  it('a long attribute value and a long result payload', TIMEOUT, () => {
    const value = '<goto>'.repeat(MB);
    const parsed = parseOutput(
      `<result v="${value}">${' <goto x="'.repeat(MB / 2)}</result>`,
      'wf/STATE.sh',
    );
    assert.equal(parsed.tags.length, 1);
    assert.equal(parsed.tags[0]!.attributes.v, value);
  });
});

describe("lint's tag scanner is linear in the text", () => {
  const more: Array<[string, string]> = [
    ...adversarial,
    ['many <goto> never closed', '<goto>A '.repeat(MB / 2)],
    ['many <result> never closed', '<result>'.repeat(MB / 2)],
    [
      'many <goto> whose body spans lines, closed at the end',
      `${'<goto>\n'.repeat(MB / 2)}</goto>`,
    ],
  ];
  for (const [name, filler] of more) {
    it(name, TIMEOUT, () => {
      assert.deepEqual(
        scanScript(`echo '${filler}'\necho '${TAIL}'`).tags.map((t) => [t.tag, t.body]),
        [['goto', 'NEXT']],
      );
    });
  }
});
