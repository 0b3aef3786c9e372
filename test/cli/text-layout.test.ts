import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { duration, keepEnd, wrapItems } from '../../src/cli/text-layout.js';

describe('text laid out for a terminal', () => {
  it('duration: seconds, minutes, hours', () => {
    assert.deepEqual(
      [duration(7_900), duration(187_000), duration(3_723_000), duration(-5)],
      ['7s', '3m07s', '1h02m03s', '0s'],
    );
  });

  it('wrapItems breaks between items only, dropping the separator at a break', () => {
    const items: Array<[string, string]> = [
      ['', 'raymond'],
      ['  ', '12 running'],
      [' · ', '140 idle'],
      ['   ', '$1.2345 / $10.00'],
      ['   ', '3m07s'],
    ];
    assert.deepEqual(wrapItems(items, 200), [
      'raymond  12 running · 140 idle   $1.2345 / $10.00   3m07s',
    ]);
    assert.deepEqual(wrapItems(items, 40), [
      'raymond  12 running · 140 idle',
      '$1.2345 / $10.00   3m07s',
    ]);
    assert.deepEqual(
      wrapItems(items, 15),
      ['raymond', '12 running', '140 idle', '$1.2345 / $10.0', '3m07s'],
      'only an item wider than the line is cut',
    );
  });

  it('keepEnd shortens the text so the end stays whole', () => {
    assert.equal(
      keepEnd('  main  invoking  START.md', '  3s', 80),
      '  main  invoking  START.md  3s',
    );
    assert.equal(
      keepEnd('  main  invoking  A_VERY_LONG_STATE.md', '  3s', 24),
      '  main  invoking  A…  3s',
    );
    assert.equal(keepEnd('  main\tx', '\n', 80), '  main x ');
    assert.equal(keepEnd('abcdef', '  12s', 4), 'abcd');
    // Terminal columns, not characters: each CJK character takes two.
    assert.equal(
      keepEnd('  main  invoking  処理中の状態.md', '  3s', 27),
      '  main  invoking  処理…  3s',
    );
    assert.equal(
      keepEnd('  main  invoking  処理中の状態.md', '  3s', 26),
      '  main  invoking  処…  3s',
    );
    assert.equal(keepEnd('  main  処理.md', '  3s', 80), '  main  処理.md  3s');
  });

  it('wrapItems measures terminal columns', () => {
    assert.deepEqual(
      wrapItems(
        [
          ['', '処理中'],
          [' · ', 'ab'],
        ],
        11,
      ),
      ['処理中 · ab'],
    );
    assert.deepEqual(
      wrapItems(
        [
          ['', '処理中'],
          [' · ', 'abc'],
        ],
        11,
      ),
      ['処理中', 'abc'],
    );
    assert.deepEqual(wrapItems([['', '処理中です']], 5), ['処理']);
  });
});
