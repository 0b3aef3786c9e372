import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sha256Hex } from '../../src/scope/zip-hash.js';
import { makeZip } from '../helpers/make-zip.js';
import { Sandbox, sh, summary } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

const ZIP = makeZip([{ name: 'START.sh', content: sh('echo "<result>hashed ran</result>"') }]);
const HASH = sha256Hex(ZIP);

function stateFiles(): string[] {
  const dir = join(box.dir, '.raymond/state');
  return existsSync(dir) ? readdirSync(dir) : [];
}

describe('hashed zips', () => {
  it('a zip named by the sha256 of its bytes runs, in either case', async () => {
    for (const name of [`${HASH}.zip`, `${HASH.toUpperCase()}.zip`]) {
      writeFileSync(join(box.dir, name), ZIP);
      const r = await box.run([name, '--json']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(summary(r).results.main, 'hashed ran');
    }
  });

  it('a hashed zip whose bytes changed is refused in one line, exit 64, before any state file', async () => {
    const changed = makeZip([
      { name: 'START.sh', content: sh('echo "<result>tampered</result>"') },
    ]);
    const name = `${HASH}.zip`;
    writeFileSync(join(box.dir, name), changed);
    const before = stateFiles();
    const r = await box.run([name]);
    assert.equal(r.code, 64);
    assert.equal(
      r.stderr,
      `raymond: ${name}: sha256 mismatch: the name says ${HASH} but the archive hashes to ${sha256Hex(changed)}; refusing it\n`,
    );
    assert.deepEqual(stateFiles(), before, 'no state file was written');
  });

  it('lint refuses it the same way', async () => {
    const r = await box.run(['lint', `${HASH}.zip`]);
    assert.equal(r.code, 64);
    assert.match(r.stderr, /^raymond: [0-9a-f]{64}\.zip: sha256 mismatch: /);
  });

  it('a zip whose name is no hash is not checked', async () => {
    writeFileSync(join(box.dir, 'plain.zip'), ZIP);
    const r = await box.run(['plain.zip', '--json']);
    assert.equal(r.code, 0, r.stderr);
  });
});
