import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { projectRaymondDir } from '../src/raymond-folder.js';

const root = mkdtempSync(join(tmpdir(), 'raymond-folder-'));
after(() => rmSync(root, { recursive: true, force: true }));

describe('projectRaymondDir', () => {
  it('finds the nearest .raymond upward, stops at a repository top, else uses the working folder', () => {
    const outer = join(root, 'outer');
    mkdirSync(join(outer, '.raymond'), { recursive: true });
    mkdirSync(join(outer, 'a', 'b'), { recursive: true });
    assert.equal(projectRaymondDir(join(outer, 'a', 'b'), {}), join(outer, '.raymond'));
    mkdirSync(join(outer, 'repo', '.git'), { recursive: true });
    mkdirSync(join(outer, 'repo', 'src'), { recursive: true });
    assert.equal(
      projectRaymondDir(join(outer, 'repo', 'src'), {}),
      join(outer, 'repo', '.raymond'),
      'the repository top, not the .raymond above it',
    );
  });

  it('never goes up into a folder of RAYMOND_CEILING_DIRECTORIES', () => {
    const shared = join(root, 'shared');
    mkdirSync(join(shared, '.raymond'), { recursive: true });
    const mine = join(shared, 'mine', 'deep');
    mkdirSync(mine, { recursive: true });
    assert.equal(projectRaymondDir(mine, {}), join(shared, '.raymond'), 'without a ceiling');
    const env = { RAYMOND_CEILING_DIRECTORIES: `/nowhere:${shared}/` };
    assert.equal(projectRaymondDir(mine, env), join(mine, '.raymond'));
    assert.equal(
      projectRaymondDir(join(shared, 'mine'), env),
      join(shared, 'mine', '.raymond'),
      'the folder right below the ceiling is the highest looked at',
    );
    assert.equal(
      projectRaymondDir(mine, { RAYMOND_CEILING_DIRECTORIES: 'relative/path' }),
      join(shared, '.raymond'),
      'relative paths are ignored, as git ignores them',
    );
  });
});
