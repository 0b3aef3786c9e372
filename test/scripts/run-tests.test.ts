import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

const script = new URL('../../scripts/run-tests.mjs', import.meta.url).pathname;
const empty = mkdtempSync(join(tmpdir(), 'raymond-no-path-'));
after(() => rmSync(empty, { recursive: true, force: true }));

describe('scripts/run-tests.mjs', () => {
  it('counts the tests that need Chromium as skipped when there is none, with the reason', () => {
    // An empty PATH hides any Chromium; the runner and the CLI are started by absolute path.
    // Without NODE_TEST_CONTEXT the nested runner reports in TAP, not to this runner.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const r = spawnSync(process.execPath, [script, 'test/e2e/diagram.test.ts'], {
      encoding: 'utf8',
      env: { ...env, PATH: empty },
    });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^# skipped 2$/m);
    assert.match(r.stdout, /# SKIP chromium is not installed/);
  });
});
