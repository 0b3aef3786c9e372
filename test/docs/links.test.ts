import { strict as assert } from 'node:assert';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../helpers/cli.js';
import { anchors, docPages, links, readPage, resolveLink } from '../helpers/doc-pages.js';

describe('links in README.md and docs/', () => {
  it('every relative link names a file that exists, and a heading of it when it has an anchor', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const page of docPages()) {
      for (const target of links(readPage(page))) {
        if (/^[a-z]+:/i.test(target)) continue; // https:, mailto: are not ours to check offline
        checked++;
        const [path = '', anchor] = target.split('#');
        const file = path === '' ? page : resolveLink(page, path);
        if (!existsSync(join(ROOT, file))) {
          broken.push(`${page}: ${target}: no such file ${file}`);
          continue;
        }
        if (anchor === undefined) continue;
        if (statSync(join(ROOT, file)).isDirectory() || !file.endsWith('.md'))
          broken.push(`${page}: ${target}: an anchor into a file that is not a page`);
        else if (!anchors(readPage(file)).has(anchor))
          broken.push(`${page}: ${target}: ${file} has no heading #${anchor}`);
      }
    }
    assert.deepEqual(broken, []);
    assert.ok(checked > 100, `only ${checked} links found: the link reader is broken`);
  });

  it('every page under docs/ is linked from the index, docs/README.md', () => {
    const index = new Set(
      links(readPage('docs/README.md')).map((t) => resolveLink('docs/README.md', t.split('#')[0]!)),
    );
    const missing = docPages().filter(
      (p) => p.startsWith('docs/') && p !== 'docs/README.md' && !index.has(p),
    );
    assert.deepEqual(missing, []);
  });
});

describe('the link reader', () => {
  it("finds GitHub's anchors, skips code, and resolves relative paths", () => {
    const text =
      "# Fan-in: `<join>`\n## Merging a run's branches: raymond merge\n## A\n## A\n```\n# not a heading [x](nope.md)\n```\nsee [b](b.md#c) and `[code](no.md)`";
    assert.deepEqual(
      [...anchors(text)],
      ['fan-in-join', 'merging-a-runs-branches-raymond-merge', 'a', 'a-1'],
    );
    assert.deepEqual(links(text), ['b.md#c']);
    assert.equal(resolveLink('docs/a.md', '../README.md'), 'README.md');
    assert.equal(resolveLink('docs/a.md', 'reference/cli.md'), 'docs/reference/cli.md');
  });
});
