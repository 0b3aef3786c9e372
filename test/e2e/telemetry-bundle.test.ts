import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../helpers/cli.js';

// Tracing off costs nothing: the OpenTelemetry SDK is in a chunk of the bundle that only a
// dynamic import() reaches, so a run without an endpoint never loads it.
const dirs = ['dist/src/cli', 'dist/src/executors', 'dist/src/language'].map((d) => join(ROOT, d));
const files = dirs.flatMap((d) =>
  readdirSync(d)
    .filter((f) => f.endsWith('.js'))
    .map((f) => join(d, f)),
);

describe('the bundle of the traces', () => {
  it('keeps the OpenTelemetry SDK in a chunk that is only imported dynamically', () => {
    const sdk = files.filter((f) => readFileSync(f, 'utf8').includes('BatchSpanProcessor'));
    assert.equal(sdk.length, 1, `one chunk holds the SDK: ${sdk.join(', ')}`);
    const name = sdk[0]!.slice(sdk[0]!.lastIndexOf('/') + 1).replace('.js', '');
    assert.match(name, /^chunk-/);
    let dynamic = 0;
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      const statics = [...text.matchAll(/(?:from|import)\s*"([^"]+)"/g)].map((m) => m[1]!);
      assert.ok(!statics.some((s) => s.endsWith(`/${name}.js`)), `${f} imports ${name} statically`);
      dynamic += text.split(`import("./${name}.js")`).length - 1;
    }
    assert.equal(dynamic, 1, 'one dynamic import() loads it');
    assert.ok(readFileSync(sdk[0]!).length < 120_000, 'the chunk stays small (ES modules, shaken)');
  });
});
