import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { scratchPath } from '../../src/testing/scratch-paths.js';

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'raymond-scratch-')));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('scratchPath', () => {
  const work = join(dir, 'work');
  mkdirSync(join(work, 'sub'), { recursive: true });
  mkdirSync(join(dir, 'outside'));
  writeFileSync(join(dir, 'outside/f.txt'), 'x');
  writeFileSync(join(work, 'sub/in.txt'), 'x');
  symlinkSync(join(dir, 'outside'), join(work, 'out'));
  symlinkSync(join(dir, 'outside/f.txt'), join(work, 'file-out'));
  symlinkSync('sub', join(work, 'in-link'));
  symlinkSync(join(dir, 'nowhere'), join(work, 'dangling'));

  it('follows links: a name through a link out of the folder is outside, whether it exists or not', () => {
    assert.deepEqual(scratchPath(work, 'out/f.txt'), { kind: 'outside' });
    assert.deepEqual(scratchPath(work, 'out/new/g.txt'), { kind: 'outside' });
    assert.deepEqual(scratchPath(work, 'file-out'), { kind: 'outside' });
    assert.deepEqual(scratchPath(work, 'dangling'), { kind: 'outside' });
  });
  it('gives the real path of a name inside, and where a missing one would be', () => {
    assert.deepEqual(scratchPath(work, 'in-link/in.txt'), {
      kind: 'inside',
      path: join(work, 'sub/in.txt'),
    });
    assert.deepEqual(scratchPath(work, 'sub/a/b.txt'), {
      kind: 'missing',
      path: join(work, 'sub/a/b.txt'),
    });
  });
});
