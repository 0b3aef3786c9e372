import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { execa } from 'execa';
import { CLI, ROOT } from '../helpers/cli.js';
import { docPages, fences, readPage, type Fence } from '../helpers/doc-pages.js';

const SHELLS = new Set(['sh', 'bash', 'shell']);

/** What the comments above a shell block say about it. */
function kind(f: Fence): {
  notRun?: string;
  runBy?: string;
  expect: string[];
  outputBelow?: boolean;
  unknown: string[];
} {
  const out: ReturnType<typeof kind> = { expect: [], unknown: [] };
  for (const m of f.marks) {
    const [, key, value = ''] = /^([a-z ]+):\s*(.*)$/.exec(m) ?? [];
    if (key === 'not run' && value !== '') out.notRun = value;
    else if (key === 'run by') out.runBy = value.split(/\s/)[0]!;
    else if (key === 'expect') out.expect.push(value);
    else if (key === 'output' && value === 'below') out.outputBelow = true;
    else out.unknown.push(m);
  }
  return out;
}

const shellBlocks = docPages().flatMap((page) => {
  const all = fences(readPage(page));
  // `output: below` compares the output with the text block that follows.
  return all.flatMap((f, i) =>
    SHELLS.has(f.lang)
      ? [{ page, f, k: kind(f), shown: all[i + 1]?.lang === 'text' ? all[i + 1]!.body : undefined }]
      : [],
  );
});

describe('shell blocks in README.md and docs/', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'raymond-doc-sh-'));
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('every one is run by a test, or says why not just before it', () => {
    const problems: string[] = [];
    for (const { page, f, k } of shellBlocks) {
      const where = `${page}:${f.line}`;
      if (k.unknown.length)
        problems.push(
          `${where}: unknown comment ${JSON.stringify(k.unknown)} (not run: REASON | run by: FILE | expect: TEXT | output: below)`,
        );
      if (k.notRun !== undefined && (k.runBy !== undefined || k.expect.length))
        problems.push(`${where}: "not run" with "run by" or "expect"`);
      if (k.runBy !== undefined) {
        const test = join(ROOT, k.runBy);
        if (!existsSync(test)) problems.push(`${where}: run by ${k.runBy}, which does not exist`);
        else if (!readFileSync(test, 'utf8').includes(page))
          problems.push(`${where}: ${k.runBy} never reads ${page}`);
      }
    }
    assert.deepEqual(problems, []);
    assert.ok(shellBlocks.length >= 15, `only ${shellBlocks.length} shell blocks found`);
  });

  // The blocks nobody else runs: each page's in order, in one scratch project folder, with `raymond`
  // the built CLI and the repository's workflows/ and dist/ beside them (the commands are written to
  // run from a clone).
  const pages = [
    ...new Set(
      shellBlocks
        .filter((b) => b.k.notRun === undefined && b.k.runBy === undefined)
        .map((b) => b.page),
    ),
  ];
  for (const page of pages) {
    it(`${page}: its commands run offline, exit 0 and print what the page says`, async () => {
      const dir = join(scratch, page.replace(/\W/g, '_'));
      mkdirSync(join(dir, '.raymond'), { recursive: true });
      symlinkSync(join(ROOT, 'workflows'), join(dir, 'workflows'));
      symlinkSync(join(ROOT, 'dist'), join(dir, 'dist'));
      const blocks = shellBlocks.filter(
        (b) => b.page === page && b.k.notRun === undefined && b.k.runBy === undefined,
      );
      for (const { f, k, shown } of blocks) {
        const script = `set -e\nexec 2>&1\nraymond() { "${process.execPath}" "${CLI}" "$@"; }\n${f.body}\n`;
        const r = await execa('bash', ['-c', script], {
          cwd: dir,
          // The agent CLIs (devDependencies) on PATH, as npm gives them and as the pages ask of a user.
          env: {
            ...process.env,
            HOME: dir,
            PATH: `${join(ROOT, 'node_modules/.bin')}${delimiter}${process.env.PATH ?? ''}`,
          },
          reject: false,
          stdin: 'ignore',
          timeout: 120_000,
        });
        const out = String(r.stdout);
        assert.equal(r.exitCode, 0, `${page}:${f.line} exited ${r.exitCode}:\n${out}`);
        for (const text of k.expect)
          assert.ok(
            out.includes(text),
            `${page}:${f.line}: the output lacks ${JSON.stringify(text)}:\n${out}`,
          );
        if (k.outputBelow)
          assert.equal(
            out.trimEnd(),
            shown?.trimEnd(),
            `${page}:${f.line}: the output is not the text block below it`,
          );
      }
    });
  }

  it('some blocks are run here, and every README command block is among them or marked', () => {
    assert.ok(pages.includes('README.md'));
    assert.ok(
      shellBlocks.filter((b) => b.page === 'README.md' && b.k.expect.length > 0).length >= 4,
    );
  });
});
