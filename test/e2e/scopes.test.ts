import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { join } from 'node:path';
import { makeZip } from '../helpers/make-zip.js';
import { Sandbox, sh, summary } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

const files = {
  'START.sh': sh('echo "<goto>MIDDLE</goto>"'),
  'MIDDLE.sh': sh('echo "<call return=\\"END\\">SUB</call>"'),
  'SUB.sh': sh('echo "<result>sub ran in $(basename "$PWD")</result>"'),
  'END.sh': sh('echo "<result>end: $RAYMOND_INPUT</result>"'),
};

function zip(name: string, entries: Array<{ name: string; content?: string }>): string {
  const path = join(box.dir, name);
  writeFileSync(path, makeZip(entries));
  return path;
}

describe('workflow scopes', () => {
  it('a directory starts at START', async () => {
    const wf = box.write(files, 'dir-scope');
    const r = await box.run([wf, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, `end: sub ran in ${box.dir.split('/').pop()}`);
    assert.match(summary(r).workflow_id!, /^dir-scope-[0-9a-f]{8}$/);
  });

  it('a directory prefers 1_START', async () => {
    const wf = box.write({ '1_START.sh': sh('echo "<result>one</result>"'), 'OTHER.sh': sh('echo "<result>other</result>"') }, 'one-start');
    const r = await box.run([wf, '--json']);
    assert.equal(summary(r).results.main, 'one');
  });

  it('a state file starts at that file, with its folder as the scope', async () => {
    box.write(files, 'file-scope');
    const r = await box.run(['file-scope/MIDDLE.sh', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(summary(r).results.main!, /^end: sub ran in/);
    assert.match(summary(r).workflow_id!, /^MIDDLE-[0-9a-f]{8}$/);
    const { fingerprints, ...scope } = box.states().find((s) => s.workflow_id === summary(r).workflow_id)!.scope;
    assert.deepEqual(scope, { kind: 'file', path: join(box.dir, 'file-scope/MIDDLE.sh'), entry: 'MIDDLE.sh' });
    assert.deepEqual(Object.keys(fingerprints!), ['END.sh', 'MIDDLE.sh', 'START.sh', 'SUB.sh'], 'the whole folder is the scope');
  });

  it('a flat zip runs its scripts from the archive', async () => {
    const path = zip('flat.zip', Object.entries(files).map(([name, content]) => ({ name, content })));
    const r = await box.run([path, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(summary(r).results.main!, /^end: sub ran in/);
    assert.match(summary(r).workflow_id!, /^flat-[0-9a-f]{8}$/);
  });

  it('a zip with one top folder works too', async () => {
    const path = zip('folder.zip', [{ name: 'wf/' }, ...Object.entries(files).map(([name, content]) => ({ name: `wf/${name}`, content }))]);
    const r = await box.run([path, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(summary(r).results.main!, /^end: sub ran in/);
  });

  const refused: Array<[string, Array<{ name: string; content?: string }>, RegExp]> = [
    ['two top folders', [{ name: 'a/START.sh', content: 'x' }, { name: 'b/END.sh', content: 'x' }], /unsupported layout/],
    ['files at two levels', [{ name: 'START.sh', content: 'x' }, { name: 'sub/END.sh', content: 'x' }], /unsupported layout/],
    ['nested folders', [{ name: 'a/b/START.sh', content: 'x' }], /unsupported layout/],
    ['a .. entry', [{ name: 'START.sh', content: 'x' }, { name: '../evil.sh', content: 'x' }], /unsafe entry "\.\.\/evil\.sh"/],
    ['an absolute entry', [{ name: '/etc/evil.sh', content: 'x' }], /unsafe entry "\/etc\/evil\.sh"/],
    ['no entry state', [{ name: 'OTHER.sh', content: 'x' }], /no entry state/],
  ];
  for (const [name, entries, pattern] of refused) {
    it(`a zip with ${name} is refused with exit 2`, async () => {
      const path = zip(`${name.replace(/\W+/g, '-')}.zip`, entries);
      const r = await box.run([path]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, pattern);
      assert.ok(r.stderr.includes(path.split('/').pop()!), 'names the archive');
    });
  }

  it('a file named .zip that is not a zip is refused', async () => {
    writeFileSync(join(box.dir, 'fake.zip'), 'not a zip at all');
    const r = await box.run(['fake.zip']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^raymond: fake\.zip: /m);
  });
});
