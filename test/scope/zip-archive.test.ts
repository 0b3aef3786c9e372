import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { RaymondError, formatError } from '../../src/errors.js';
import { readZipArchive, type ZipEntry } from '../../src/scope/zip-archive.js';
import { makeZip } from '../helpers/make-zip.js';

const FILE = 'flow.zip';
const tmp = mkdtempSync(join(tmpdir(), 'raymond-zip-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** An entry's bytes, read to the end of its stream (where size and CRC errors surface). */
async function read(entry: ZipEntry): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of entry.stream()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Reads every entry, so that errors met while reading surface too. */
async function readAll(data: Buffer, file = FILE): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const e of readZipArchive(data, file)) out.set(e.name, await read(e));
  return out;
}

function assertRefused(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, refusal(pattern));
}

/** The same check for an entry whose bytes are refused while they are read. */
async function assertReadRefused(entry: ZipEntry, pattern: RegExp): Promise<void> {
  await assert.rejects(read(entry), refusal(pattern));
}

function refusal(pattern: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof RaymondError, `expected a RaymondError, got ${String(err)}`);
    assert.equal(err.code, 'ERR_ZIP_INVALID');
    assert.ok(formatError(err).startsWith(`${FILE}: `), formatError(err));
    assert.ok(!formatError(err).includes('\n'), 'message is one line');
    assert.match(formatError(err), pattern);
    return true;
  };
}

/** Offsets into a makeZip output holding one entry. */
function layout(zip: Buffer): { eocd: number; central: number } {
  const eocd = zip.length - 22;
  return { eocd, central: zip.readUInt32LE(eocd + 16) };
}

function patched(
  zip: Buffer,
  patch: (z: Buffer, at: { eocd: number; central: number }) => void,
): Buffer {
  const copy = Buffer.from(zip);
  patch(copy, layout(copy));
  return copy;
}

describe('readZipArchive round trips', () => {
  it('reads stored, deflated and empty files, and directories, in order', async () => {
    const zip = makeZip([
      { name: 'flow/', content: undefined },
      { name: 'flow/START.md', content: 'hello\n', method: 'store' },
      { name: 'flow/NEXT.md', content: 'next '.repeat(100) },
      { name: 'flow/EMPTY.md', content: '' },
      { name: 'flow/empty-stored.md', content: '', method: 'store' },
    ]);
    const entries = readZipArchive(zip, FILE);
    assert.deepEqual(
      entries.map((e) => [e.name, e.isDirectory, e.size]),
      [
        ['flow/', true, 0],
        ['flow/START.md', false, 6],
        ['flow/NEXT.md', false, 500],
        ['flow/EMPTY.md', false, 0],
        ['flow/empty-stored.md', false, 0],
      ],
    );
    assert.equal((await read(entries[0]!)).length, 0);
    assert.equal((await read(entries[1]!)).toString(), 'hello\n');
    assert.equal((await read(entries[2]!)).toString(), 'next '.repeat(100));
    assert.equal((await read(entries[3]!)).length, 0);
    assert.equal((await read(entries[4]!)).length, 0);
  });

  it('reads UTF-8 names', async () => {
    const files = await readAll(
      makeZip([
        { name: 'état/café ☕.md', content: 'ok' },
        { name: '日本語.sh', content: 'x', method: 'store' },
      ]),
    );
    assert.deepEqual([...files.keys()], ['état/café ☕.md', '日本語.sh']);
    assert.equal(files.get('état/café ☕.md')!.toString(), 'ok');
  });

  it('reads a 1 MB file, stored and deflated', async () => {
    const big = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7919) % 251;
    const files = await readAll(
      makeZip([
        { name: 'big.bin', content: big },
        { name: 'big-stored.bin', content: big, method: 'store' },
      ]),
    );
    assert.ok(files.get('big.bin')!.equals(big));
    assert.ok(files.get('big-stored.bin')!.equals(big));
  });

  it('reads an empty archive as no entries', () => {
    assert.deepEqual(readZipArchive(makeZip([]), FILE), []);
  });

  it('accepts a trailing archive comment, even one that looks like an EOCD record', async () => {
    const zip = makeZip([{ name: 'a.md', content: 'a' }]);
    for (const comment of [
      Buffer.from('made by hand'),
      Buffer.concat([Buffer.from('PK\x05\x06'), Buffer.alloc(30)]),
      Buffer.alloc(0xffff, 0x20),
    ]) {
      const withComment = Buffer.concat([zip, comment]);
      withComment.writeUInt16LE(comment.length, zip.length - 2);
      assert.equal((await readAll(withComment)).get('a.md')!.toString(), 'a');
    }
  });

  it('does not judge names', () => {
    const names = readZipArchive(
      makeZip([
        { name: '../evil.md', content: 'x' },
        { name: '/abs.md', content: 'y' },
      ]),
      FILE,
    ).map((e) => e.name);
    assert.deepEqual(names, ['../evil.md', '/abs.md']);
  });
});

describe('readZipArchive refusals', () => {
  const zip = makeZip([{ name: 'a.md', content: 'some content '.repeat(20) }]);

  it('refuses random bytes and an empty buffer', () => {
    const junk = Buffer.alloc(4096);
    let seed = 12345;
    for (let i = 0; i < junk.length; i++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      junk[i] = seed >>> 24;
    }
    assertRefused(
      () => readZipArchive(junk, FILE),
      /^flow\.zip: not a zip archive \(no end of central directory record\)$/,
    );
    assertRefused(() => readZipArchive(Buffer.alloc(0), FILE), /not a zip archive/);
    assertRefused(() => readZipArchive(Buffer.from('PK\x05\x06'), FILE), /not a zip archive/);
  });

  it('refuses truncated archives', () => {
    assertRefused(() => readZipArchive(zip.subarray(0, zip.length - 5), FILE), /not a zip archive/);
    // The EOCD survives but everything it points at has moved.
    assertRefused(() => readZipArchive(zip.subarray(20), FILE), /truncated or corrupt/);
    const cut = Buffer.concat([zip.subarray(0, 40), zip.subarray(layout(zip).central)]);
    cut.writeUInt32LE(40, cut.length - 22 + 16);
    assertRefused(
      () => readZipArchive(cut, FILE),
      /truncated or corrupt archive \(data of entry "a\.md" overlaps the central directory\)/,
    );
  });

  it('refuses entries whose data runs past the end of the buffer', () => {
    const bad = patched(zip, (z, at) => z.writeUInt32LE(0x00ffffff, at.central + 20));
    assertRefused(() => readZipArchive(bad, FILE), /data of entry "a\.md" runs past the end/);
  });

  it('refuses encrypted entries', () => {
    const bad = patched(zip, (z, at) => {
      z.writeUInt16LE(z.readUInt16LE(6) | 1, 6);
      z.writeUInt16LE(z.readUInt16LE(at.central + 8) | 1, at.central + 8);
    });
    assertRefused(
      () => readZipArchive(bad, FILE),
      /^flow\.zip: entry "a\.md" is encrypted; encrypted archives are not supported$/,
    );
  });

  it('refuses an unsupported compression method', () => {
    const bad = patched(zip, (z, at) => {
      z.writeUInt16LE(99, 8);
      z.writeUInt16LE(99, at.central + 10);
    });
    assertRefused(() => readZipArchive(bad, FILE), /entry "a\.md" uses compression method 99/);
  });

  it('refuses ZIP64 markers', () => {
    assertRefused(
      () =>
        readZipArchive(
          patched(zip, (z, at) => z.writeUInt32LE(0xffffffff, at.central + 24)),
          FILE,
        ),
      /ZIP64/,
    );
    assertRefused(
      () =>
        readZipArchive(
          patched(zip, (z, at) => z.writeUInt32LE(0xffffffff, at.central + 42)),
          FILE,
        ),
      /ZIP64/,
    );
    assertRefused(
      () =>
        readZipArchive(
          patched(zip, (z, at) => z.writeUInt16LE(0xffff, at.eocd + 10)),
          FILE,
        ),
      /ZIP64/,
    );
    assertRefused(
      () =>
        readZipArchive(
          patched(zip, (z, at) => z.writeUInt32LE(0xffffffff, at.eocd + 16)),
          FILE,
        ),
      /ZIP64/,
    );
  });

  it('refuses multi-disk archives', () => {
    assertRefused(
      () =>
        readZipArchive(
          patched(zip, (z, at) => z.writeUInt16LE(1, at.eocd + 4)),
          FILE,
        ),
      /multi-disk/,
    );
    assertRefused(
      () =>
        readZipArchive(
          patched(zip, (z, at) => z.writeUInt16LE(1, at.eocd + 6)),
          FILE,
        ),
      /multi-disk/,
    );
  });

  it('refuses a CRC mismatch when the entry is read', async () => {
    const bad = patched(zip, (z, at) =>
      z.writeUInt32LE((z.readUInt32LE(at.central + 16) ^ 1) >>> 0, at.central + 16),
    );
    const [entry] = readZipArchive(bad, FILE);
    await assertReadRefused(entry!, /^flow\.zip: entry "a\.md" fails its CRC-32 check/);
  });

  it('refuses a size mismatch when the entry is read', async () => {
    const size = zip.readUInt32LE(layout(zip).central + 24);
    for (const declared of [size - 1, size + 1]) {
      const bad = patched(zip, (z, at) => z.writeUInt32LE(declared, at.central + 24));
      await assertReadRefused(
        readZipArchive(bad, FILE)[0]!,
        /entry "a\.md" is (larger than its declared size|\d+ bytes but the archive declares)/,
      );
    }
    // Reading stops at the declared size, stored or deflated: a lying header never costs more.
    const stored = makeZip([{ name: 'a.md', content: 'abc', method: 'store' }]);
    const bad = patched(stored, (z, at) => z.writeUInt32LE(2, at.central + 24));
    await assertReadRefused(
      readZipArchive(bad, FILE)[0]!,
      /^flow\.zip: entry "a\.md" is larger than its declared size of 2 bytes$/,
    );
    const short = patched(stored, (z, at) => z.writeUInt32LE(4, at.central + 24));
    await assertReadRefused(
      readZipArchive(short, FILE)[0]!,
      /entry "a\.md" is 3 bytes but the archive declares 4/,
    );
  });

  it('refuses corrupt deflate data', async () => {
    const bad = patched(zip, (z) => z.fill(0xff, 30 + 4, 30 + 12));
    await assertReadRefused(
      readZipArchive(bad, FILE)[0]!,
      /entry "a\.md" has corrupt deflate data/,
    );
  });
});

describe('interoperability with Info-ZIP', () => {
  it('reads an archive made by the system zip command', async () => {
    const src = join(tmp, 'src');
    mkdirSync(join(src, 'flow'), { recursive: true });
    const big = 'line of text\n'.repeat(50_000);
    writeFileSync(join(src, 'flow', 'START.md'), 'start <goto>END</goto>\n');
    writeFileSync(join(src, 'flow', 'END.sh'), big);
    writeFileSync(join(src, 'flow', 'EMPTY.md'), '');
    writeFileSync(join(src, 'flow', 'café.md'), 'unicode');
    const out = join(tmp, 'system.zip');
    execFileSync('/usr/bin/zip', ['-r', '-q', out, 'flow'], { cwd: src });
    const entries = readZipArchive(readFileSync(out), FILE);
    const byName = new Map(entries.map((e) => [e.name, e]));
    assert.deepEqual([...byName.keys()].sort(), [
      'flow/',
      'flow/EMPTY.md',
      'flow/END.sh',
      'flow/START.md',
      'flow/café.md',
    ]);
    assert.equal(byName.get('flow/')!.isDirectory, true);
    assert.equal((await read(byName.get('flow/END.sh')!)).toString(), big);
    assert.equal((await read(byName.get('flow/START.md')!)).toString(), 'start <goto>END</goto>\n');
    assert.equal((await read(byName.get('flow/EMPTY.md')!)).length, 0);
    assert.equal((await read(byName.get('flow/café.md')!)).toString(), 'unicode');

    const storedOut = join(tmp, 'stored.zip');
    execFileSync('/usr/bin/zip', ['-0', '-q', '-j', storedOut, join(src, 'flow', 'END.sh')]);
    assert.equal((await readAll(readFileSync(storedOut))).get('END.sh')!.toString(), big);
  });

  it('refuses an archive encrypted by the system zip command', () => {
    const out = join(tmp, 'secret.zip');
    writeFileSync(join(tmp, 'a.md'), 'secret');
    execFileSync('/usr/bin/zip', ['-q', '-j', '-P', 'pw', out, join(tmp, 'a.md')]);
    assertRefused(() => readZipArchive(readFileSync(out), FILE), /entry "a\.md" is encrypted/);
  });

  it('refuses a ZIP64 archive made by the system zip command', () => {
    const out = join(tmp, 'zip64.zip');
    writeFileSync(join(tmp, 'b.md'), 'small');
    execFileSync('/usr/bin/zip', ['-q', '-j', '-fz', out, join(tmp, 'b.md')]);
    assertRefused(
      () => readZipArchive(readFileSync(out), FILE),
      /ZIP64 archives are not supported/,
    );
  });

  it('makes archives that unzip accepts', () => {
    const out = join(tmp, 'made.zip');
    writeFileSync(
      out,
      makeZip([
        { name: 'flow/' },
        { name: 'flow/START.md', content: 'hi', method: 'store' },
        { name: 'flow/big.txt', content: 'x'.repeat(100_000) },
        { name: 'flow/EMPTY.md', content: '' },
        { name: 'flow/café.md', content: 'é' },
      ]),
    );
    execFileSync('unzip', ['-t', '-q', out]);
    const listing = execFileSync('unzip', ['-l', out], { encoding: 'utf8' });
    assert.match(listing, /flow\/big\.txt/);
    assert.match(listing, /5 files/);
    assert.equal(execFileSync('unzip', ['-p', out, 'flow/START.md'], { encoding: 'utf8' }), 'hi');
    const extracted = join(tmp, 'extracted');
    execFileSync('unzip', ['-q', out, '-d', extracted]);
    assert.equal(readFileSync(join(extracted, 'flow', 'big.txt'), 'utf8'), 'x'.repeat(100_000));
  });
});
