import { strict as assert } from 'node:assert';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../helpers/cli.js';
import { readPage } from '../helpers/doc-pages.js';

describe('docs/examples.md', () => {
  it('its table lists every folder and file of workflows/examples', () => {
    const rows = readPage('docs/examples.md')
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .map((l) => l.split('|')[1]!);
    const listed = new Set(
      rows.flatMap((cell) => [...cell.matchAll(/`([^`]+?)\/?`/g)].map((m) => m[1]!)),
    );
    const entries = readdirSync(join(ROOT, 'workflows/examples'));
    assert.ok(entries.length >= 14);
    assert.deepEqual(
      entries.filter((e) => !listed.has(e)),
      [],
    );
    assert.deepEqual(
      [...listed].filter((e) => !entries.includes(e)),
      [],
      'no row names an example that is gone',
    );
  });
});
