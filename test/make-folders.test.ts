import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { isDiskFull, makeFolders, makeFoldersSync } from '../src/make-folders.js';

const dir = mkdtempSync(join(tmpdir(), 'raymond-folders-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('makeFolders', () => {
  it('makes a folder and its missing parents, and accepts one that exists', async () => {
    await makeFolders(join(dir, 'a/b/c'));
    assert.ok(statSync(join(dir, 'a/b/c')).isDirectory());
    await makeFolders(join(dir, 'a/b/c'));
    makeFoldersSync(join(dir, 's/t'));
    makeFoldersSync(join(dir, 's/t'));
    assert.ok(statSync(join(dir, 's/t')).isDirectory());
  });

  it('refuses a file in the way', async () => {
    writeFileSync(join(dir, 'file'), '');
    await assert.rejects(makeFolders(join(dir, 'file')), { code: 'ENOTDIR' });
    await assert.rejects(makeFolders(join(dir, 'file/x')), { code: 'ENOTDIR' });
    assert.throws(() => makeFoldersSync(join(dir, 'file')), { code: 'ENOTDIR' });
  });

  it(
    'fails once where a parent cannot be made, instead of looping as recursive mkdir does under /proc',
    { skip: !existsSync('/proc/self') },
    async () => {
      await assert.rejects(makeFolders('/proc/raymond-nope/state'), { code: 'ENOENT' });
      assert.throws(() => makeFoldersSync('/proc/raymond-nope/state'), { code: 'ENOENT' });
    },
  );

  it('counts out of space, of inodes and over quota as a full disk', () => {
    for (const code of ['ENOSPC', 'EDQUOT', 'EFBIG'])
      assert.equal(isDiskFull(Object.assign(new Error(code), { code })), true);
    assert.equal(isDiskFull(Object.assign(new Error('x'), { code: 'ENOENT' })), false);
  });
});
