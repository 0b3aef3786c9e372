import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'smol-toml';
import {
  configArg,
  isConfigPath,
  tomlProblem,
  tomlString,
  tomlValue,
  type TomlValue,
} from '../../../src/agents/codex/codex-toml.js';

/** What a TOML reader makes of `key = <value>`. */
const back = (v: TomlValue): unknown =>
  JSON.parse(JSON.stringify(parse(`key = ${tomlValue(v)}`).key)) as unknown;

describe('codex TOML values', () => {
  const values: Array<[string, TomlValue]> = [
    ['plain text', 'hello'],
    ['quotes and backslashes', 'say "hi" \\ C:\\dir\\'],
    ['newlines, tabs, carriage returns', 'a\nb\tc\r\nd'],
    ['control characters and DEL', '\u0000\u0001\u001f\u007f\b\f'],
    ['unicode and emoji', 'ünïcødé — 日本 🚀'],
    ['text that looks like TOML', 'x" , y = "z'],
    ['a TOML comment', '# not a comment'],
    ['an empty string', ''],
    ['an integer', 42],
    ['a negative integer', -7],
    ['a float', 0.125],
    ['a tiny float', 1e-7],
    ['a huge number', 1e300],
    ['an integer past 2^53 (as a float)', 2 ** 60],
    ['true', true],
    ['false', false],
    ['a list of mixed values', ['a', 1, true, ['nested']]],
    ['an empty list', []],
    ['a mapping', { command: 'node', args: ['x.js'], env: { A: 'b "c"' } }],
    ['keys that need quotes', { 'my.server': 1, 'with space': 'x', ünï: true, '': 2 }],
    ['an empty mapping', {}],
  ];
  for (const [name, value] of values)
    it(`writes ${name} so that a TOML reader reads it back`, () => {
      const read = back(value);
      if (typeof value === 'number' && !Number.isSafeInteger(value))
        assert.equal(Number(read), value);
      else assert.deepEqual(read, value);
    });

  it('writes a lone surrogate, which TOML has no escape for, as U+FFFD', () => {
    assert.equal(back('a\ud800b'), 'a\ufffdb');
    assert.equal(tomlString('\udc00'), '"\ufffd"');
  });

  it('writes integers as integers and the rest as floats', () => {
    assert.equal(tomlValue(3), '3');
    assert.equal(tomlValue(3.5), '3.5');
    assert.equal(tomlValue(2 ** 60), '1.152921504606847e+18');
  });

  it('makes one -c override', () => {
    assert.deepEqual(configArg('model_providers.x.name', 'x'), [
      '-c',
      'model_providers.x.name="x"',
    ]);
    assert.deepEqual(configArg('a', ['b', 1]), ['-c', 'a=["b", 1]']);
  });

  it('names what TOML cannot hold', () => {
    assert.equal(tomlProblem({ a: [1, 'x', { b: true }] }, 'v'), undefined);
    assert.equal(
      tomlProblem(null, 'v'),
      'v = null: expected text, a number, true or false, a list or a mapping',
    );
    assert.equal(
      tomlProblem({ a: [1, null] }, 'v'),
      'v.a[1] = null: expected text, a number, true or false, a list or a mapping',
    );
    assert.equal(tomlProblem(Number.NaN, 'v'), 'v = NaN: expected a finite number');
    assert.equal(tomlProblem(Infinity, 'v'), 'v = Infinity: expected a finite number');
    assert.match(tomlProblem(new Date(0), 'v')!, /^v = 1970-01-01T00:00:00.000Z: expected/);
  });

  it('takes dotted config paths of bare keys only: codex never unquotes a part', () => {
    assert.ok(isConfigPath('model'));
    assert.ok(isConfigPath('model_providers.my-provider.env_key'));
    for (const bad of ['', 'a..b', '.a', 'a.', 'a b', 'mcp_servers."x".command', 'a=b'])
      assert.ok(!isConfigPath(bad), bad);
  });
});
