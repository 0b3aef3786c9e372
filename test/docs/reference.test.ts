import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { REGENERATE, referencePages } from '../../src/cli/reference-docs.js';
import { ENVIRONMENT } from '../../src/cli/environment-variables.js';
import { RUN_SETTINGS } from '../../src/settings/run-settings-table.js';
import { ROOT } from '../helpers/cli.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : name.endsWith('.ts') ? [path] : [];
  });
}

describe('the generated reference pages', () => {
  const pages = referencePages();

  it('are as the code makes them, byte for byte', () => {
    for (const [path, text] of Object.entries(pages)) {
      let committed: string;
      try {
        committed = readFileSync(join(ROOT, path), 'utf8');
      } catch {
        assert.fail(`${path} is missing: run ${REGENERATE} and commit it`);
      }
      assert.ok(committed === text, `${path} is stale: run ${REGENERATE} and commit it`);
    }
  });

  it('list every setting of the table and every command', () => {
    const configuration = pages['docs/reference/configuration.md']!;
    for (const key of Object.keys(RUN_SETTINGS))
      assert.ok(configuration.includes(`\`${key.replace(/^queue\./, '[raymond.queue] ')}\``), key);
    const cli = pages['docs/reference/cli.md']!;
    for (const command of [
      'worktrees',
      'merge',
      'lint',
      'diagram',
      'convert',
      'replay',
      'serve',
      'serve list',
      'worker',
      'workers',
    ])
      assert.match(cli, new RegExp(`^## raymond ${command}$`, 'm'));
    assert.match(
      cli,
      /`--budget <usd>` \| stop starting steps once the run cost more than this; 0 = unlimited \(default: 10\)/,
    );
  });

  it('name every RAYMOND_ variable the code sets or reads in the environment reference', () => {
    const documented = ENVIRONMENT.flatMap((v) => v.name.split(', ')).map((n) =>
      n.replace(/<name>$/, ''),
    );
    const used = new Set(
      sources(join(ROOT, 'src')).flatMap((f) =>
        [...readFileSync(f, 'utf8').matchAll(/\bRAYMOND_[A-Z_]+/g)].map((m) => m[0]),
      ),
    );
    // Constants named RAYMOND_ that are no variables, the _FILE forms the pages name with their variable, and
    // RAYMOND_WRITE_GENERATED, which only a test reads (a generated file's comment names it for maintainers).
    const notRaymonds = new Set(['RAYMOND_GITIGNORE', 'RAYMOND_WRITE_GENERATED']);
    for (const name of [...used].filter((n) => !notRaymonds.has(n) && !n.endsWith('_FILE'))) {
      assert.ok(
        documented.some((d) => name === d || (d.endsWith('_') && name.startsWith(d))),
        `${name} is used in src/ but not in src/cli/environment-variables.ts`,
      );
    }
  });
});
