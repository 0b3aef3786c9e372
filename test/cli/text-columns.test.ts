import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { columnsOf, cutToColumns, padToColumns } from '../../src/cli/text-columns.js';

describe('terminal columns', () => {
  it('counts CJK, fullwidth and emoji as two columns, combining marks and zero-width characters as none', () => {
    assert.equal(columnsOf('START.md'), 8);
    assert.equal(columnsOf('処理.md'), 7);
    assert.equal(columnsOf('한국어'), 6);
    assert.equal(columnsOf('ＡＢ'), 4);
    assert.equal(columnsOf('e\u0301'), 1, 'e and a combining acute: one column');
    assert.equal(columnsOf('a\u200bb'), 2);
    assert.equal(columnsOf('🚀'), 2);
    assert.equal(columnsOf('👩‍💻'), 2, 'a ZWJ sequence is drawn as one emoji');
    assert.equal(columnsOf('é…'), 2);
  });

  it('cuts at a column, never inside a grapheme, leaving out a wide one that would straddle the edge', () => {
    assert.equal(cutToColumns('abcdef', 4), 'abcd');
    assert.equal(cutToColumns('処理中です', 5), '処理');
    assert.equal(cutToColumns('処理中です', 6), '処理中');
    assert.equal(cutToColumns('e\u0301x', 1), 'e\u0301');
    assert.equal(cutToColumns('abc', 0), '');
  });

  it('pads to columns', () => {
    assert.equal(padToColumns('処理', 6), '処理  ');
    assert.equal(padToColumns('main', 6), 'main  ');
    assert.equal(padToColumns('処理中', 2), '処理中');
  });
});
