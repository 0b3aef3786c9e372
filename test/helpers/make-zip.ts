import { crc32, createDeflateRaw, deflateRawSync } from 'node:zlib';

/** One entry for makeZip. A name ending with `/` is a directory and takes no content. */
export interface ZipInput {
  name: string;
  content?: string | Buffer;
  /** Defaults to 'deflate'. */
  method?: 'store' | 'deflate';
  /** Data deflated beforehand (see deflatedZeros), instead of `content`. */
  deflated?: Deflated;
  /** An uncompressed size to declare instead of the true one: a lying header. */
  declaredSize?: number;
}

/** Raw deflate data with the size and CRC-32 of what it inflates to. */
export interface Deflated {
  data: Buffer;
  size: number;
  crc: number;
}

/**
 * `bytes` zero bytes, deflated as a stream so that they are never all in
 * memory: a gibibyte comes to about a megabyte, the classic zip bomb.
 */
export async function deflatedZeros(bytes: number): Promise<Deflated> {
  const chunk = Buffer.alloc(16 * 2 ** 20);
  const deflate = createDeflateRaw();
  const out: Buffer[] = [];
  deflate.on('data', (c: Buffer) => out.push(c));
  const ended = new Promise((resolve, reject) => deflate.on('end', resolve).on('error', reject));
  let crc = 0;
  for (let left = bytes; left > 0; left -= chunk.length) {
    const part = chunk.subarray(0, Math.min(left, chunk.length));
    crc = crc32(part, crc);
    if (!deflate.write(part)) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await ended;
  return { data: Buffer.concat(out), size: bytes, crc };
}

// A fixed timestamp (2024-01-01 00:00) keeps fixtures byte-for-byte reproducible.
const DOS_TIME = 0;
const DOS_DATE = ((2024 - 1980) << 9) | (1 << 5) | 1;
// Bit 11: names are UTF-8, so unzip shows non-ASCII names correctly.
const FLAGS = 0x0800;
// "Made by" Unix (3) so the external attributes below are read as Unix modes.
const MADE_BY = (3 << 8) | 20;

/**
 * Builds a ZIP archive in memory: a local header and data per entry, then the
 * central directory and the end-of-central-directory record. No ZIP64, no
 * comment. Meant for test fixtures; `unzip -t` accepts its output.
 */
export function makeZip(entries: ZipInput[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const isDir = entry.name.endsWith('/');
    const name = Buffer.from(entry.name, 'utf8');
    const content = isDir ? Buffer.alloc(0) : Buffer.from(entry.content ?? '');
    const method = isDir || (entry.method === 'store' && !entry.deflated) ? 0 : 8;
    const body = entry.deflated?.data ?? (method === 8 ? deflateRawSync(content) : content);
    const crc = entry.deflated?.crc ?? crc32(content);
    const size = entry.declaredSize ?? entry.deflated?.size ?? content.length;
    const versionNeeded = method === 8 || isDir ? 20 : 10;

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(versionNeeded, 4);
    local.writeUInt16LE(FLAGS, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(DOS_TIME, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, body);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(MADE_BY, 4);
    central.writeUInt16LE(versionNeeded, 6);
    central.writeUInt16LE(FLAGS, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(DOS_TIME, 12);
    central.writeUInt16LE(DOS_DATE, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    // Unix mode in the high 16 bits; the MS-DOS directory bit (0x10) for tools that ignore the mode.
    const attributes = isDir ? ((0o040755 << 16) | 0x10) >>> 0 : (0o100644 << 16) >>> 0;
    central.writeUInt32LE(attributes, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);

    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(entries.length, 8);
  eocd.writeUInt16LE(entries.length, 10);
  eocd.writeUInt32LE(directory.length, 12);
  eocd.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, eocd]);
}
