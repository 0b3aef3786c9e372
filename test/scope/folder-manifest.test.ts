import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readFolderManifest } from '../../src/scope/folder-manifest.js';
import { RaymondError } from '../../src/errors.js';
import { Sandbox, sh } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

describe('readFolderManifest', () => {
  it("reads a folder's workflow.yaml as serve lists it, its backend included", async () => {
    const dir = box.write(
      {
        'workflow.yaml': 'name: On Codex\nbackend: codex\ninput:\n  mode: required\n',
        'START.sh': sh('echo "<result>ok</result>"'),
      },
      'on-codex',
    );
    const entry = await readFolderManifest(dir);
    assert.equal(entry?.name, 'On Codex');
    assert.equal(entry?.backend, 'codex');
    assert.equal(entry?.input.mode, 'required');
    const plain = box.write({ 'workflow.yaml': 'id: plain\n', 'START.sh': sh('true') }, 'plain');
    assert.equal((await readFolderManifest(plain))?.backend, 'claude');
  });

  it('gives nothing for a folder without a manifest', async () => {
    assert.equal(
      await readFolderManifest(box.write({ 'START.sh': sh('true') }, 'bare')),
      undefined,
    );
  });

  it('refuses a manifest with an unknown backend in one line naming the manifest', async () => {
    const dir = box.write({ 'workflow.yaml': 'backend: gemini\n', 'START.sh': sh('true') }, 'bad');
    await assert.rejects(readFolderManifest(dir), (err: unknown) => {
      assert.ok(err instanceof RaymondError);
      assert.equal(err.code, 'ERR_YAML_INVALID');
      assert.equal(err.file, join(dir, 'workflow.yaml'));
      assert.match(err.message, /^backend: unknown backend "gemini"; known: claude, codex, pi$/);
      return true;
    });
  });
});
