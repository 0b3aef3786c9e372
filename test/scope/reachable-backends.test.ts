import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { reachableBackends } from '../../src/scope/reachable-backends.js';
import { openScope } from '../../src/scope/scope.js';

const root = mkdtempSync(join(tmpdir(), 'raymond-reach-'));
after(() => rmSync(root, { recursive: true, force: true }));

function files(tree: Record<string, string>): void {
  for (const [path, text] of Object.entries(tree)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

describe('reachableBackends', () => {
  it("gives the workflow's backend and those its cross-workflow tags name, followed from workflow to workflow, each once", async () => {
    files({
      'main/START.md':
        'go <call-workflow return="B">../cdx/</call-workflow> or <fork-workflow next="B">../cdx</fork-workflow>',
      'main/B.md': 'templated, not followed: <reset-workflow>../{{input}}/</reset-workflow>',
      'cdx/workflow.yaml': 'backend: codex\n',
      'cdx/START.md': '<function-workflow return="X">../pi/</function-workflow>',
      'cdx/X.md': 'back to <call-workflow return="X">../main/</call-workflow>',
      'pi/workflow.yaml': 'backend: pi\n',
      'pi/START.md': 'a missing one is left to its step: <reset-workflow>../gone/</reset-workflow>',
    });
    const scope = await openScope(join(root, 'main'));
    try {
      const specs = await reachableBackends(scope);
      assert.deepEqual(
        specs.map((s) => s?.name ?? 'default'),
        ['default', 'codex', 'pi'],
      );
    } finally {
      await scope.dispose();
    }
  });

  it('is the workflow alone when it names no other', async () => {
    files({ 'alone/workflow.yaml': 'backend: codex\n', 'alone/START.md': '<result>x</result>' });
    const scope = await openScope(join(root, 'alone'));
    try {
      assert.deepEqual(
        (await reachableBackends(scope)).map((s) => s?.name),
        ['codex'],
      );
    } finally {
      await scope.dispose();
    }
  });
});
