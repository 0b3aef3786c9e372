import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { affordanceOf, capsOf } from '../../src/serve/ask-affordance.js';
import { fileNameProblem, sniffType } from '../../src/serve/ask-files.js';

describe('ask files', () => {
  it('reads slot, bucket and display attributes as ray serve shows them', () => {
    assert.equal(affordanceOf({}), undefined);
    assert.deepEqual(
      affordanceOf({ upload_slots: 'cv.pdf:application/pdf|image/png, photo.png' }),
      {
        mode: 'slot',
        slots: [{ name: 'cv.pdf', mime: ['application/pdf', 'image/png'] }, { name: 'photo.png' }],
      },
    );
    assert.deepEqual(
      affordanceOf({
        upload_bucket: 'true',
        upload_max_count: '3',
        upload_max_size: 'x',
        upload_mime: 'image/png',
      }),
      { mode: 'bucket', bucket: { max_count: 3, mime: ['image/png'] } },
    );
    assert.deepEqual(affordanceOf({ display_files: 'out/r.pdf:Report.pdf,a.txt' }), {
      mode: 'display_only',
      display_files: [
        { source_path: 'out/r.pdf', display_name: 'Report.pdf' },
        { source_path: 'a.txt' },
      ],
    });
  });

  it("takes a bucket ask's caps over the server's, and the server's over the defaults", () => {
    assert.deepEqual(capsOf(undefined, {}), {
      perFile: 10 * 2 ** 20,
      total: 100 * 2 ** 20,
      count: 10,
    });
    assert.deepEqual(
      capsOf({ mode: 'bucket', bucket: { max_count: 2 } }, { count: 5, perFile: 7 }),
      { perFile: 7, total: 100 * 2 ** 20, count: 2 },
    );
    assert.deepEqual(capsOf({ mode: 'slot', slots: [] }, { count: 5 }).count, 5);
  });

  it('sniffs types from bytes, never names', () => {
    assert.equal(
      sniffType(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0])),
      'image/png',
    );
    assert.equal(sniffType(Buffer.from('%PDF-1.7')), 'application/pdf');
    assert.equal(sniffType(Buffer.from('  <!DOCTYPE html><p>')), 'text/html');
    assert.equal(sniffType(Buffer.from('<svg onload=x>')), 'image/svg+xml');
    assert.equal(sniffType(Buffer.from('plain words')), 'text/plain');
    assert.equal(sniffType(Buffer.from([0, 1, 2, 255])), 'application/octet-stream');
  });

  it('refuses names that are paths, hidden, reserved or hold control characters', () => {
    for (const bad of ['', '../x', 'a/b', 'a\\b', '.env', 'x\u0000y', 'CON', 'nul.txt'])
      assert.ok(fileNameProblem(bad), bad);
    assert.equal(fileNameProblem('report 2.pdf'), undefined);
  });
});
