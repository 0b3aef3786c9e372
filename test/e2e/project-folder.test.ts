import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { raymond, Sandbox, sh } from '../helpers/cli.js';
import { git } from '../helpers/git-repo.js';

const box = new Sandbox({ project: false });
after(() => box.remove());

describe("the project's .raymond folder, found as ray finds it", () => {
  it('a run started in a subfolder of a repository lands in the root .raymond, and --list shows it from the root', async () => {
    const root = join(box.dir, 'repo');
    mkdirSync(join(root, 'sub', 'deeper'), { recursive: true });
    git(root, 'init', '-q');
    const wf = box.write({ 'S.sh': sh('echo "<result>hi</result>"') }, 'repo/sub/deeper');
    const r = await raymond([join(wf, 'S.sh'), '--workflow-id', 'deep', '--quiet'], { cwd: wf });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(existsSync(join(root, '.raymond', 'state', 'deep.json')));
    assert.equal(existsSync(join(wf, '.raymond')), false);
    assert.match((await raymond(['--list'], { cwd: root })).stdout, /^deep {2}completed/m);
    assert.match(
      (await raymond(['--status', 'deep'], { cwd: join(root, 'sub') })).stdout,
      /completed/,
    );
    // The config goes there too.
    assert.match(
      (await raymond(['--init-config'], { cwd: wf })).stdout,
      new RegExp(`wrote ${join(root, '.raymond', 'config.toml')}`),
    );
  });

  it('a nearer .raymond wins; outside any repository the current folder holds it', async () => {
    const root = join(box.dir, 'repo2');
    mkdirSync(join(root, 'pkg', '.raymond'), { recursive: true });
    git(root, 'init', '-q');
    const wf = box.write({ 'S.sh': sh('echo "<result>hi</result>"') }, 'repo2/pkg/app');
    assert.equal(
      (await raymond([join(wf, 'S.sh'), '--workflow-id', 'near', '--quiet'], { cwd: wf })).code,
      0,
    );
    assert.ok(existsSync(join(root, 'pkg', '.raymond', 'state', 'near.json')));
    const loose = box.write({ 'S.sh': sh('echo "<result>hi</result>"') }, 'loose/a');
    assert.equal(
      (await raymond([join(loose, 'S.sh'), '--workflow-id', 'loose', '--quiet'], { cwd: loose }))
        .code,
      0,
    );
    assert.ok(existsSync(join(loose, '.raymond', 'state', 'loose.json')));
  });
});
