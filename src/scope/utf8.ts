import { RaymondError } from '../errors.js';

/** Decodes a workflow file's bytes; anything but valid UTF-8 is an error naming `where`. */
export function decodeUtf8(bytes: Uint8Array, where: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new RaymondError('ERR_FILE_READ', 'is not valid UTF-8 text; save it as UTF-8', {
      file: where,
    });
  }
}
