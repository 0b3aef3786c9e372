import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { ROOT } from '../helpers/cli.js';
import { fences, readPage } from '../helpers/doc-pages.js';

// The package as a user gets it: `npm pack` of the built tree, installed globally into a temporary
// prefix with no network (every dependency is inside the bundle, so there is nothing to fetch).
// Measured on this tree (2026-11-29): a tarball of 1.36 MB and an install of 4.20 MB (the bundle
// 2.9 MB, the docs with their three screenshots the rest). The bounds catch what should never ship
// (source maps, tsc's modules, tests), with room for the docs that are still growing.
const MAX_TARBALL_BYTES = 1.5 * 1024 * 1024;
const MAX_INSTALLED_BYTES = 4.5 * 1024 * 1024;

/** Bytes of every file under `dir`, as `du -sb` counts them. */
function treeBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += treeBytes(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

interface Packed {
  filename: string;
  size: number;
  files: Array<{ path: string }>;
}

describe('the npm package', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'raymond-pack-'));
  const prefix = join(tmp, 'prefix');
  const version = (
    JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
  ).version;
  let packed: Packed;
  let installError = '';

  before(async () => {
    const pack = await execa('npm', ['pack', '--json', '--pack-destination', tmp], { cwd: ROOT });
    packed = (JSON.parse(pack.stdout) as Packed[])[0]!;
    // npm's cache folder stays the user's (a global install reads nothing from it: there are no dependencies).
    const install = await execa(
      'npm',
      [
        'install',
        '-g',
        '--offline',
        '--no-audit',
        '--no-fund',
        '--prefix',
        prefix,
        join(tmp, packed.filename),
      ],
      { reject: false },
    );
    if (install.exitCode !== 0) installError = install.stderr;
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('holds the bundle, its workers, the docs and the examples, and no source maps or tsc modules', () => {
    const paths = packed.files.map((f) => f.path);
    for (const must of [
      'LICENSE',
      'README.md',
      'package.json',
      'dist/src/cli/main.js',
      'dist/src/cli/worker.js',
      'dist/src/executors/spawner.main.js',
      'dist/src/language/language.worker.js',
      'workflows/examples/tour/1_START.sh',
    ]) {
      assert.ok(paths.includes(must), `${must} is in the package`);
    }
    assert.ok(
      paths.some((p) => p.startsWith('docs/')),
      'the docs are in the package',
    );
    assert.deepEqual(
      paths.filter((p) => p.endsWith('.map')),
      [],
    );
    // Only the bundle's entries and chunks: the modules tsc wrote are inside them.
    assert.deepEqual(
      paths.filter(
        (p) =>
          p.startsWith('dist/') &&
          !/^dist\/src\/(cli\/(main|worker|chunk-\w+)|executors\/spawner\.main|language\/language\.worker)\.js$/.test(
            p,
          ),
      ),
      [],
    );
    assert.ok(
      packed.size < MAX_TARBALL_BYTES,
      `the tarball is ${packed.size} bytes, over ${MAX_TARBALL_BYTES}`,
    );
  });

  it('installs offline into a prefix, with no dependency to fetch', () => {
    assert.equal(installError, '', 'npm install -g --offline of the tarball');
    const manifest = JSON.parse(
      readFileSync(join(prefix, 'lib/node_modules/raymond/package.json'), 'utf8'),
    ) as { dependencies?: object };
    assert.equal(manifest.dependencies, undefined);
    const installed = treeBytes(prefix);
    assert.ok(
      installed < MAX_INSTALLED_BYTES,
      `the install is ${installed} bytes, over ${MAX_INSTALLED_BYTES}`,
    );
  });

  it('raymond and ray print the version from the install', async () => {
    for (const bin of ['raymond', 'ray']) {
      const r = await execa(join(prefix, 'bin', bin), ['--version'], { reject: false });
      assert.equal(r.exitCode, 0, r.stderr);
      assert.equal(r.stdout.trim(), version);
    }
  });

  it('runs the tour shipped in the package, spawner process included', async () => {
    const cwd = join(tmp, 'tour');
    mkdirSync(cwd);
    const r = await execa(
      join(prefix, 'bin/raymond'),
      [join(prefix, 'lib/node_modules/raymond/workflows/examples/tour')],
      { cwd, reject: false, timeout: 60_000 },
    );
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'Tour complete: LIFTOFF!, and three workers forked');
  });

  it("parses a big output on the installed language worker (piscina's worker file is beside the bundle)", async () => {
    // Outputs of 1 MiB and more are parsed on the worker pool, not inline.
    const wf = join(tmp, 'big');
    mkdirSync(wf);
    writeFileSync(
      join(wf, 'START.sh'),
      '#!/bin/sh\nhead -c 1200000 /dev/zero | tr "\\0" x\necho\necho "<result>big done</result>"\n',
      { mode: 0o755 },
    );
    const r = await execa(join(prefix, 'bin/raymond'), [wf], {
      cwd: wf,
      reject: false,
      timeout: 60_000,
    });
    assert.equal(r.exitCode, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'big done');
  });
});

describe('docs/getting-started.md: the install from a clone, run as written', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'raymond-install-doc-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('packs the clone, installs the tarball with no network, and the installed raymond runs the tour', async () => {
    const block = fences(readPage('docs/getting-started.md')).find((f) =>
      f.marks.includes('run by: test/e2e/package.test.ts'),
    );
    assert.ok(block, 'the page has the install block');
    // The page's `~/raymond`: a copy of the built clone's packed files, so `npm pack` writes its
    // tarball there and not into the checkout the tests run from.
    const clone = join(tmp, 'home', 'raymond');
    for (const part of ['package.json', 'README.md', 'LICENSE', 'docs', 'workflows', 'dist'])
      cpSync(join(ROOT, part), join(clone, part), { recursive: true });
    const prefix = join(tmp, 'prefix');
    const r = await execa('bash', ['-ec', `exec 2>&1\n${block.body}`], {
      cwd: tmp,
      env: {
        ...process.env,
        HOME: join(tmp, 'home'),
        PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`,
        // A global prefix and an npm cache of the test's own; offline: nothing may be fetched.
        npm_config_prefix: prefix,
        npm_config_cache: join(tmp, 'npm-cache'),
        npm_config_offline: 'true',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        npm_config_update_notifier: 'false',
      },
      reject: false,
      stdin: 'ignore',
      timeout: 120_000,
    });
    const out = String(r.stdout);
    assert.equal(r.exitCode, 0, out);
    const version = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
    assert.match(out, new RegExp(`^${version.replace(/\./g, '\\.')}$`, 'm'), out);
    assert.match(out, /^Tour complete: LIFTOFF!, and three workers forked$/m, out);
    assert.match(out, /run tour-\w+ completed: 12 steps/, out);
  });
});
