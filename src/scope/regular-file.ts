import { constants, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename } from 'node:path';

function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'a FIFO';
  if (info.isDirectory()) return 'a folder';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a file';
}

/**
 * A regular file's bytes (at most `limit`, else an error). Opened with
 * O_NONBLOCK and checked on the open handle: a FIFO would otherwise wait
 * for a writer forever, holding one of the few threads all file reads
 * share, and a device would never end. Anything but a regular file is
 * refused with a message.
 */
export async function readRegularFile(
  path: string,
  limit: number,
  tooLarge: string,
): Promise<Buffer> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (!info.isFile())
      throw new Error(
        `${basename(path)} is not a regular file (${kindOf(info)}); only regular files are read`,
      );
    if (info.size > limit) throw new Error(tooLarge);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
