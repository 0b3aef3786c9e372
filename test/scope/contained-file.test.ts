import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { isInside, readContainedFile } from '../../src/scope/contained-file.js';

const root = mkdtempSync(join(tmpdir(), 'raymond-contained-'));
const wf = join(root, 'wf');
mkdirSync(join(wf, 'sub'), { recursive: true });
writeFileSync(join(root, 'outside.txt'), 'outside');
writeFileSync(join(wf, 'sub', 'inside.txt'), 'inside');
after(() => rmSync(root, { recursive: true, force: true }));

const why = (rel: string, max?: number) =>
  readContainedFile(wf, rel, max).then(
    () => 'read',
    (err: Error) => err.message,
  );

describe('readContainedFile', () => {
  it('reads a file inside the folder, through a link that stays inside', async () => {
    symlinkSync(join(wf, 'sub', 'inside.txt'), join(wf, 'link-in.txt'));
    assert.equal((await readContainedFile(wf, 'sub/inside.txt')).toString(), 'inside');
    assert.equal((await readContainedFile(wf, 'link-in.txt')).toString(), 'inside');
    assert.equal((await readContainedFile(wf, 'sub/../sub/inside.txt')).toString(), 'inside');
  });

  it('refuses a path or a link that leaves the folder, and an absolute path outside', async () => {
    symlinkSync(join(root, 'outside.txt'), join(wf, 'link-out.txt'));
    assert.match(await why('../outside.txt'), /outside the workflow's folder/);
    assert.match(await why('link-out.txt'), /outside the workflow's folder/);
    assert.match(await why(join(root, 'outside.txt')), /outside the workflow's folder/);
    assert.equal(await why('missing.txt'), 'no such file');
  });

  it('refuses a FIFO and a folder without blocking, and a file over the cap', async () => {
    execFileSync('mkfifo', [join(wf, 'fifo')]);
    assert.equal(await why('fifo'), 'not a regular file');
    assert.equal(await why('sub'), 'not a regular file');
    writeFileSync(join(wf, 'big.txt'), 'x'.repeat(2049));
    assert.match(await why('big.txt', 2048), /larger than 2 KiB/);
    assert.equal(await why('big.txt', 4096), 'read');
  });

  it('isInside: the folder itself and what is below it, not a sibling sharing its prefix', () => {
    assert.ok(isInside('/a/wf', '/a/wf'));
    assert.ok(isInside('/a/wf', '/a/wf/x/y'));
    assert.ok(!isInside('/a/wf', '/a/wf2/x'));
    assert.ok(!isInside('/a/wf', '/a'));
    assert.ok(isInside('/a/wf', '/a/wf/..x'));
  });
});
