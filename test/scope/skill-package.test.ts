import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { statesFolder } from '../../src/scope/skill-package.js';
import { openScope } from '../../src/scope/scope.js';

const dir = mkdtempSync(join(tmpdir(), 'raymond-skill-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function folder(name: string, files: string[]): string {
  const root = join(dir, name);
  for (const f of files) {
    mkdirSync(join(root, f, '..'), { recursive: true });
    if (!f.endsWith('/'))
      writeFileSync(join(root, f), '#!/usr/bin/env bash\necho "<result>ok</result>"\n');
  }
  return root;
}

describe('statesFolder', () => {
  it('a folder with workflow.yaml and states/ runs its states/', async () => {
    const pkg = folder('pkg', ['workflow.yaml', 'run.sh', 'states/1_START.sh']);
    assert.equal(await statesFolder(pkg), join(pkg, 'states'));
  });

  it('a folder with a manifest but no states/ runs itself', async () => {
    const flat = folder('flat', ['workflow.yaml', 'START.sh']);
    assert.equal(await statesFolder(flat), flat);
  });

  it('a states/ folder without a manifest beside it is only a subfolder', async () => {
    const plain = folder('plain', ['START.sh', 'states/1_START.sh']);
    assert.equal(await statesFolder(plain), plain);
  });

  it('a file, a missing path and a URL are returned as given', async () => {
    const pkg = folder('pkg2', ['workflow.yaml', 'states/1_START.sh']);
    assert.equal(await statesFolder(join(pkg, 'workflow.yaml')), join(pkg, 'workflow.yaml'));
    assert.equal(await statesFolder(join(dir, 'missing')), join(dir, 'missing'));
    assert.equal(
      await statesFolder('https://example.invalid/w.zip'),
      'https://example.invalid/w.zip',
    );
  });

  it('openScope opens a package at its states/, named after the package', async () => {
    const pkg = folder('approval', [
      'workflow.yaml',
      'run.sh',
      'SKILL.md',
      'states/1_START.sh',
      'states/NEXT.sh',
    ]);
    const scope = await openScope(pkg);
    try {
      assert.equal(scope.ref.path, join(pkg, 'states'));
      assert.equal(scope.ref.entry, '1_START.sh');
      assert.equal(scope.name, 'approval');
      assert.deepEqual(scope.stateFiles().sort(), ['1_START.sh', 'NEXT.sh']);
    } finally {
      await scope.dispose();
    }
  });
});
