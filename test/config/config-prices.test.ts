import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readConfig } from '../../src/config/config-file.js';
import { RaymondError } from '../../src/errors.js';

const root = mkdtempSync(join(tmpdir(), 'raymond-prices-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

function file(text: string): string {
  const path = join(root, `config-${++n}.toml`);
  writeFileSync(path, text);
  return path;
}

function refusal(text: string): string {
  const path = file(text);
  try {
    readConfig(path);
  } catch (err) {
    assert.ok(err instanceof RaymondError && err.code === 'ERR_CONFIG');
    assert.equal(err.file, path);
    return err.message;
  }
  assert.fail(`accepted: ${text}`);
}

describe('[raymond.prices]', () => {
  it('reads a table per model, cached_input optional', () => {
    const prices = readConfig(
      file(
        '[raymond.prices."gpt-5"]\ninput = 1.25\ncached_input = 0.125\noutput = 10\n' +
          '[raymond.prices.my-model]\ninput = 0\noutput = 2\n',
      ),
    ).prices;
    assert.deepEqual(prices, {
      'gpt-5': { input: 1.25, cached_input: 0.125, output: 10 },
      'my-model': { input: 0, output: 2 },
    });
  });

  it('is empty when absent, and is no unknown key of [raymond]', () => {
    const c = readConfig(file('[raymond]\nbudget = 1\n'));
    assert.deepEqual(c.prices, {});
    const d = readConfig(file('[raymond.prices.m]\ninput = 1\noutput = 1\n'));
    assert.deepEqual(d.warnings, []);
  });

  for (const [what, text, want] of [
    [
      'a missing output',
      '[raymond.prices.m]\ninput = 1\n',
      /raymond\.prices\."m"\.output = undefined: expected USD per million tokens/,
    ],
    [
      'a negative price',
      '[raymond.prices.m]\ninput = -1\noutput = 1\n',
      /\.input = -1: expected USD/,
    ],
    [
      'text for a number',
      '[raymond.prices.m]\ninput = "1"\noutput = 1\n',
      /\.input = "1": expected USD/,
    ],
    [
      'an unknown key',
      '[raymond.prices.m]\ninput = 1\noutput = 1\ncache_read = 1\n',
      /\.cache_read: unknown key \(known: input, cached_input, output\)/,
    ],
    [
      'a model that is no table',
      '[raymond.prices]\nm = 3\n',
      /raymond\.prices\."m": expected a table/,
    ],
    [
      'prices that are no table',
      '[raymond]\nprices = 3\n',
      /expected the table \[raymond\.prices\]/,
    ],
  ] as const) {
    it(`refuses ${what}, naming the file and the key`, () => assert.match(refusal(text), want));
  }
});
