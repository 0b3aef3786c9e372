import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { execa } from 'execa';
import { ROOT } from '../helpers/cli.js';
import { readPage } from '../helpers/doc-pages.js';

/**
 * docs/architecture.md's "Adding a transition tag", held true: a copy of
 * the tree gets a new tag (`<wait>`) in the two places the guide starts
 * from, and the compiler then names exactly the files the guide lists.
 */
const copy = mkdtempSync(join(tmpdir(), 'raymond-tag-'));
after(() => rmSync(copy, { recursive: true, force: true }));

/** Replaces `from` (which must be there) in a file of the copy. */
function edit(path: string, from: string, to: string): void {
  const text = readFileSync(join(copy, path), 'utf8');
  assert.ok(text.includes(from), `${path} still has ${JSON.stringify(from)}`);
  writeFileSync(join(copy, path), text.replace(from, to));
}

/** The files of the guide's list: the first path of each bullet after "The compiler then names". */
function guideFiles(): string[] {
  const page = readPage('docs/architecture.md');
  const section = page.slice(page.indexOf('## Adding a transition tag'));
  const body = section.slice(0, section.indexOf('\n## ', 3));
  const listed = body.slice(body.indexOf('The compiler then names'));
  return [...listed.matchAll(/^- `((?:src|machines)\/[\w/.-]+\.ts)`/gm)].map((m) => m[1]!).sort();
}

describe('docs/architecture.md: Adding a transition tag', () => {
  it('names exactly the files the compiler lists once a tag and its decision are added', async () => {
    for (const part of ['src', 'machines', 'tsconfig.json', 'package.json'])
      cpSync(join(ROOT, part), join(copy, part), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
    // The two places the guide starts from.
    edit(
      'src/language/tag-scanner.ts',
      "  'ask',\n  ...WORKFLOW_TAGS,",
      "  'ask',\n  'wait',\n  ...WORKFLOW_TAGS,",
    );
    edit(
      'machines/decision.ts',
      "  | { kind: 'result'; payload: string }",
      "  | { kind: 'result'; payload: string }\n  | { kind: 'wait'; target: string }",
    );
    edit(
      'machines/decision.ts',
      "export type ResolvedDecisionData =\n  | Variant<'goto'>",
      "export type ResolvedDecisionData =\n  | Variant<'goto'>\n  | Variant<'wait'>",
    );
    const tsc = await execa(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit'],
      { cwd: copy, reject: false, all: true },
    );
    assert.notEqual(tsc.exitCode, 0, 'a new tag is a compile error until every place handles it');
    const named = [
      ...new Set(
        [...String(tsc.all).matchAll(/^((?:src|machines)\/[\w/.-]+\.ts)\(\d+,\d+\): error/gm)].map(
          (m) => m[1]!,
        ),
      ),
    ].sort();
    assert.deepEqual(named, guideFiles(), String(tsc.all));
  });
});
