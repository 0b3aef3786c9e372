import { Readable, Transform, type TransformCallback } from 'node:stream';
import { createInflateRaw, crc32 } from 'node:zlib';
import { RaymondError } from '../errors.js';

/** One entry of a ZIP archive, named exactly as the archive names it. */
export interface ZipEntry {
  /** Path inside the archive, decoded as UTF-8, `/`-separated as stored. */
  name: string;
  /** True when the name ends with `/`. */
  isDirectory: boolean;
  /** Uncompressed size in bytes, as the central directory declares it. */
  size: number;
  /**
   * The entry's bytes, decompressed as they are read. The stream fails with
   * ERR_ZIP_INVALID as soon as the data outgrows the declared size (so a lying
   * header never costs more than `size` bytes), and at its end when the size
   * or the CRC-32 is wrong or the deflate data is corrupt.
   */
  stream(): Readable;
}

// Compressed data is fed in slices so that inflating one slice buffers little.
const SLICE = 64 * 1024;

const EOCD_SIG = 0x06054b50;
const EOCD_SIZE = 22;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const CENTRAL_SIG = 0x02014b50;
const CENTRAL_SIZE = 46;
const LOCAL_SIG = 0x04034b50;
const LOCAL_SIZE = 30;
const MAX_COMMENT = 0xffff;

/**
 * Lists the entries of a ZIP archive held in memory, in central-directory
 * order. Only single-disk, non-ZIP64, unencrypted archives whose entries are
 * stored or deflated are accepted; anything else throws ERR_ZIP_INVALID with a
 * message prefixed by `file`. Entry names are not judged here.
 */
export function readZipArchive(data: Buffer, file: string): ZipEntry[] {
  const invalid = (message: string) => new RaymondError('ERR_ZIP_INVALID', message, { file });
  const fail = (message: string): never => {
    throw invalid(message);
  };

  const eocd = findEndOfCentralDirectory(data);
  if (eocd < 0) fail('not a zip archive (no end of central directory record)');
  const diskNumber = data.readUInt16LE(eocd + 4);
  const cdDisk = data.readUInt16LE(eocd + 6);
  const entriesOnDisk = data.readUInt16LE(eocd + 8);
  const total = data.readUInt16LE(eocd + 10);
  const cdSize = data.readUInt32LE(eocd + 12);
  const cdOffset = data.readUInt32LE(eocd + 16);

  // A ZIP64 writer may leave ordinary-looking EOCD fields and put the real
  // values in the ZIP64 record, so its locator alone is reason to refuse.
  const hasZip64Locator = eocd >= 20 && data.readUInt32LE(eocd - 20) === ZIP64_LOCATOR_SIG;
  if (
    hasZip64Locator ||
    total === 0xffff ||
    entriesOnDisk === 0xffff ||
    cdSize === 0xffffffff ||
    cdOffset === 0xffffffff
  ) {
    fail('ZIP64 archives are not supported');
  }
  if (diskNumber !== 0 || cdDisk !== 0 || entriesOnDisk !== total)
    fail('multi-disk (split) archives are not supported');
  if (cdOffset + cdSize > eocd)
    fail('truncated or corrupt archive (central directory runs past its end)');

  const entries: ZipEntry[] = [];
  let pos = cdOffset;
  const cdEnd = cdOffset + cdSize;
  for (let i = 0; i < total; i++) {
    if (pos + CENTRAL_SIZE > cdEnd || data.readUInt32LE(pos) !== CENTRAL_SIG) {
      fail(
        `truncated or corrupt archive (central directory entry ${i + 1} of ${total} is missing)`,
      );
    }
    const flags = data.readUInt16LE(pos + 8);
    const method = data.readUInt16LE(pos + 10);
    const crc = data.readUInt32LE(pos + 16);
    const compressedSize = data.readUInt32LE(pos + 20);
    const size = data.readUInt32LE(pos + 24);
    const nameLength = data.readUInt16LE(pos + 28);
    const extraLength = data.readUInt16LE(pos + 30);
    const commentLength = data.readUInt16LE(pos + 32);
    const startDisk = data.readUInt16LE(pos + 34);
    const localOffset = data.readUInt32LE(pos + 42);
    const next = pos + CENTRAL_SIZE + nameLength + extraLength + commentLength;
    if (next > cdEnd)
      fail(
        `truncated or corrupt archive (central directory entry ${i + 1} of ${total} is cut short)`,
      );
    // Always UTF-8: writers that leave the UTF-8 flag unset almost always wrote ASCII anyway.
    const name = data.toString('utf8', pos + CENTRAL_SIZE, pos + CENTRAL_SIZE + nameLength);
    pos = next;

    if (compressedSize === 0xffffffff || size === 0xffffffff || localOffset === 0xffffffff) {
      fail(`entry "${name}" uses ZIP64 sizes; ZIP64 archives are not supported`);
    }
    if (startDisk !== 0) fail('multi-disk (split) archives are not supported');
    if (flags & 0x1) fail(`entry "${name}" is encrypted; encrypted archives are not supported`);
    if (method !== 0 && method !== 8)
      fail(
        `entry "${name}" uses compression method ${method}; only stored (0) and deflate (8) are supported`,
      );

    // The local header's name and extra lengths may differ from the central
    // ones (e.g. Info-ZIP's extra fields), so the data offset must come from it.
    if (localOffset + LOCAL_SIZE > data.length || data.readUInt32LE(localOffset) !== LOCAL_SIG) {
      fail(`truncated or corrupt archive (local header of entry "${name}" is missing)`);
    }
    const dataStart =
      localOffset +
      LOCAL_SIZE +
      data.readUInt16LE(localOffset + 26) +
      data.readUInt16LE(localOffset + 28);
    const dataEnd = dataStart + compressedSize;
    if (dataEnd > data.length)
      fail(`truncated archive (data of entry "${name}" runs past the end of the file)`);
    // Entry data always precedes the central directory; overlap means a cut or spliced file.
    if (dataEnd > cdOffset)
      fail(`truncated or corrupt archive (data of entry "${name}" overlaps the central directory)`);

    entries.push({
      name,
      isDirectory: name.endsWith('/'),
      size,
      stream: () => {
        const raw = data.subarray(dataStart, dataEnd);
        const check = new EntryCheck(name, size, crc, invalid);
        const source = Readable.from(slices(raw), { objectMode: false });
        if (method === 0) return source.pipe(check);
        const inflate = createInflateRaw();
        inflate.on('error', (err) =>
          check.destroy(invalid(`entry "${name}" has corrupt deflate data (${err.message})`)),
        );
        check.on('close', () => inflate.destroy());
        return source.pipe(inflate).pipe(check);
      },
    });
  }
  return entries;
}

function* slices(raw: Buffer): Generator<Buffer> {
  for (let at = 0; at < raw.length; at += SLICE) yield raw.subarray(at, at + SLICE);
}

/** Passes an entry's bytes through, counting them and computing their CRC-32. */
class EntryCheck extends Transform {
  private seen = 0;
  private crc = 0;

  constructor(
    private readonly name: string,
    private readonly size: number,
    private readonly expectedCrc: number,
    private readonly invalid: (message: string) => RaymondError,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.size)
      return done(
        this.invalid(`entry "${this.name}" is larger than its declared size of ${this.size} bytes`),
      );
    this.crc = crc32(chunk, this.crc);
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    if (this.seen !== this.size)
      return done(
        this.invalid(
          `entry "${this.name}" is ${this.seen} bytes but the archive declares ${this.size}`,
        ),
      );
    if (this.crc !== this.expectedCrc)
      return done(
        this.invalid(`entry "${this.name}" fails its CRC-32 check; the archive is corrupt`),
      );
    done();
  }
}

/**
 * Offset of the EOCD record, or -1. Scanning backwards over at most a maximal
 * comment, it takes the first signature whose comment length reaches exactly
 * the end of the data, so a signature-like sequence inside a comment is skipped.
 */
function findEndOfCentralDirectory(data: Buffer): number {
  const lowest = Math.max(0, data.length - EOCD_SIZE - MAX_COMMENT);
  for (let i = data.length - EOCD_SIZE; i >= lowest; i--) {
    if (
      data.readUInt32LE(i) === EOCD_SIG &&
      i + EOCD_SIZE + data.readUInt16LE(i + 20) === data.length
    )
      return i;
  }
  return -1;
}
