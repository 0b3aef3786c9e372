#!/usr/bin/env node
// Node 20's test runner neither expands globs nor finds .ts files, so this
// script lists the test files itself and hands them to `node --test` under tsx.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (name === 'fixtures' || name === 'node_modules') continue;
    if (statSync(path).isDirectory()) out.push(...collect(path));
    else if (name.endsWith('.test.ts')) out.push(relative(root, path));
  }
  return out;
}

const files = collect(join(root, 'test')).filter(
  (f) => filters.length === 0 || filters.some((s) => f.includes(s)),
);
if (files.length === 0) {
  console.error('run-tests: no test files matched');
  process.exit(1);
}
// The tests' temporary folders live in a folder of this run's own, which
// no run's search for its project folder goes up into (a ceiling): a
// `.raymond` someone left in the shared temporary folder (a run started
// there by hand) would otherwise become the project folder of every test
// run that has none, and those tests would look for their files in vain.
const privateTmp = mkdtempSync(join(tmpdir(), 'raymond-tests-'));
const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    '--test-concurrency=2',
    '--test-reporter=tap',
    '--test-reporter-destination=stdout',
    // The failed tests again, after everything else, where a CI log's tail shows them.
    '--test-reporter=./scripts/failures-reporter.mjs',
    '--test-reporter-destination=stdout',
    ...files,
  ],
  {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, TMPDIR: privateTmp, RAYMOND_CEILING_DIRECTORIES: privateTmp },
  },
);
rmSync(privateTmp, { recursive: true, force: true, maxRetries: 5 });
process.exit(result.status ?? 1);
