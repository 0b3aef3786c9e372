import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT, Sandbox } from '../helpers/cli.js';
import { fences, readPage } from '../helpers/doc-pages.js';

describe('README.md', () => {
  const readme = readPage('README.md');
  const box = new Sandbox();
  after(() => box.remove());

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

  it("the tour's output, as the README shows it, is what the built CLI prints (but for the run time)", async () => {
    const all = fences(readme);
    const at = all.findIndex((f) => f.lang === 'sh' && f.body.includes('--workflow-id tour-demo'));
    const shown = all[at + 1];
    assert.equal(shown?.lang, 'text', 'a text block follows the tour command');
    const r = await box.run([join(ROOT, 'workflows/examples/tour'), '--workflow-id', 'tour-demo']);
    assert.equal(r.code, 0, r.stderr);
    const time = (l: string) => l.replace(/ in [\d.]+s;/, ' in TIMEs;');
    const printed = new Set(`${r.stderr}\n${r.stdout}`.split('\n').map(time));
    // The block elides lines with `...`; each line it does show is printed as it is.
    const missing = shown.body.split('\n').filter((l) => l !== '...' && !printed.has(time(l)));
    assert.deepEqual(missing, [], `printed:\n${r.stderr}${r.stdout}`);
  });
});
