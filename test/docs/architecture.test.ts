import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../helpers/cli.js';
import { readPage } from '../helpers/doc-pages.js';

/** The folders of scripts/check-imports.mjs's LAYERS, as `src/x` or `machines`. */
function layerFolders(): string[] {
  const script = readFileSync(join(ROOT, 'scripts/check-imports.mjs'), 'utf8');
  const table = /const LAYERS = \[([\s\S]*?)\n\];/.exec(script)?.[1];
  assert.ok(table, 'LAYERS is where this test looks for it');
  return [...table.matchAll(/'([^']+)'/g)].map((m) => m[1]!);
}

describe('docs/architecture.md', () => {
  const page = readPage('docs/architecture.md');

  it('its layer list names every layer of scripts/check-imports.mjs', () => {
    const bullet = /- \*\*Layers\*\*([\s\S]*?)\n\n/.exec(page)?.[1] ?? '';
    const named = new Set([...bullet.matchAll(/`([a-z/]+?)\/?`/g)].map((m) => m[1]!));
    const missing = layerFolders()
      .map((f) => (f === 'machines' || f === 'src' ? f : f.replace(/^src\//, '')))
      .filter((f) => !named.has(f));
    assert.deepEqual(missing, []);
  });

  it('its folder list has a line for every folder of src/', () => {
    const folders = readdirSync(join(ROOT, 'src')).filter((f) =>
      statSync(join(ROOT, 'src', f)).isDirectory(),
    );
    assert.ok(folders.length >= 15);
    assert.deepEqual(
      folders.filter((f) => !new RegExp(`^src/${f}/ `, 'm').test(page)),
      [],
    );
  });
});
