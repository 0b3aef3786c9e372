import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../helpers/cli.js';
import { fences, readPage } from '../helpers/doc-pages.js';

describe('README.md', () => {
  const readme = readPage('README.md');

  it('is at most 300 lines: a front door, the pages hold the rest', () => {
    const lines = readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0);
    assert.ok(lines <= 300, `README.md has ${lines} lines`);
  });

  it('shows the two set-up commands as sh blocks, and CI runs its test command', () => {
    const sh = fences(readme)
      .filter((f) => f.lang === 'sh')
      .map((f) => f.body);
    assert.ok(
      sh.includes('npm ci && npm run build && ./dist/src/cli/main.js workflows/examples/tour'),
    );
    assert.ok(sh.includes('npm ci && npm test'));
    const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8');
    assert.match(ci, /^npm ci\nnpm run build\nnpm test$/m, '.ci/run runs what the README says');
  });
});
