import { createHash } from 'node:crypto';
import { RaymondError } from '../errors.js';

// ray's documents name no case for the hex digits: either is accepted, and compared in lower case.
const HASHED_NAME = /^([0-9a-f]{64})\.zip$/i;

/**
 * The SHA-256 a zip's file name promises, in lower case: the name without
 * `.zip` when it is 64 hex digits; undefined for any other name, which is
 * then never checked.
 */
export function hashInZipName(name: string): string | undefined {
  return HASHED_NAME.exec(name)?.[1]?.toLowerCase();
}

/** SHA-256 of some bytes, as 64 lower-case hex digits. */
export function sha256Hex(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * Refuses an archive whose bytes do not hash to what its file name (`name`,
 * a bare file name) promises, with ERR_ZIP_INVALID about `file`. A name
 * that is no hash passes unchecked.
 */
export function checkZipHash(name: string, data: Buffer, file: string): void {
  const expected = hashInZipName(name);
  if (expected === undefined) return;
  const actual = sha256Hex(data);
  if (actual !== expected) {
    throw new RaymondError(
      'ERR_ZIP_INVALID',
      `sha256 mismatch: the name says ${expected} but the archive hashes to ${actual}; refusing it`,
      { file },
    );
  }
}
