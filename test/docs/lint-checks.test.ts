import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { CHECKS } from '../../src/analysis/lint-checks-table.js';
import { readPage } from '../helpers/doc-pages.js';

describe('docs/lint-and-diagram.md', () => {
  it("its table of checks has every check of the code, with the code's severity, and no other", () => {
    const documented = new Map<string, string>();
    for (const row of readPage('docs/lint-and-diagram.md')
      .split('\n')
      .filter((l) => /^\| `[a-z-]+`/.test(l))) {
      const [, ids = '', severity = ''] = row.split('|').map((c) => c.trim());
      for (const m of ids.matchAll(/`([a-z-]+)`/g)) documented.set(m[1]!, severity);
    }
    assert.deepEqual(
      Object.fromEntries([...documented].sort()),
      Object.fromEntries(Object.entries(CHECKS).sort()),
    );
  });
});
