import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve as resolvePath, sep } from 'node:path';

/**
 * Most bytes a file a workflow names (a grant's system prompt, its MCP
 * server file) may hold: both are sent to the agent CLI whole, and 1 MiB is
 * far more than either needs.
 */
export const MAX_WORKFLOW_FILE_BYTES = 2 ** 20;

/** Why a file a workflow names cannot be read; `why` is shown after the file's name. */
export class ContainedFileError extends Error {
  constructor(readonly why: string) {
    super(why);
  }
}

/** Whether `path` is `folder` or inside it (both already real paths). */
export function isInside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * Reads a file named relative to `folder` as a workflow may: it must resolve
 * inside the folder (symbolic links included: a link out is refused, as a
 * state file's is), be a regular file (a FIFO or a device is refused before
 * a byte is read, so it can never block or stream forever), and hold at most
 * `maxBytes` (the read stops one byte past it, whatever the file claims).
 */
export async function readContainedFile(
  folder: string,
  rel: string,
  maxBytes = MAX_WORKFLOW_FILE_BYTES,
): Promise<Buffer> {
  const top = await realpath(folder);
  const real = await realpath(resolvePath(folder, rel)).catch((err: NodeJS.ErrnoException) => {
    throw new ContainedFileError(
      err.code === 'ENOENT' ? 'no such file' : (err.code ?? err.message),
    );
  });
  if (!isInside(top, real))
    throw new ContainedFileError(`it resolves to ${real}, outside the workflow's folder`);
  // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever; O_NOFOLLOW: the
  // path was resolved above, so a link put there since is refused rather than followed.
  const handle = await open(
    real,
    constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW,
  ).catch((err: NodeJS.ErrnoException) => {
    throw new ContainedFileError(err.code ?? err.message);
  });
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new ContainedFileError('not a regular file');
    const tooBig = () =>
      new ContainedFileError(
        `larger than ${maxBytes / 2 ** 10} KiB, the most a workflow file may hold`,
      );
    if (info.size > maxBytes) throw tooBig();
    const chunks: Buffer[] = [];
    let length = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(64 * 2 ** 10);
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > maxBytes) throw tooBig();
      chunks.push(chunk.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks, length);
  } finally {
    await handle.close();
  }
}
