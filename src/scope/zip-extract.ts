import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { RaymondError } from '../errors.js';
import { isMarkdown } from './extensions.js';
import { ZIP_FOLDER, createPrivateFolder, type PrivateFolder } from '../private-folder.js';
import { isStateFile } from './zip-scope.js';
import type { ZipEntry } from './zip-archive.js';

/**
 * Extracts an archive's state files, once, into a private folder, streaming
 * each entry to disk. The files are read-only (scripts `r-x`, prompts `r--`):
 * every step of every agent reads the same bytes, and nothing rewrites a
 * script while a shell runs it. Files are created exclusively, so two names
 * one file system holds as one (case-insensitive ones) fail instead of
 * overwriting each other. On any error the folder is removed.
 */
export async function extractStates(
  files: ReadonlyMap<string, ZipEntry>,
  archive: string,
): Promise<PrivateFolder> {
  const folder = await createPrivateFolder(ZIP_FOLDER);
  try {
    for (const [name, entry] of files) {
      if (!isStateFile(name)) continue;
      const out = createWriteStream(join(folder.path, name), {
        flags: 'wx',
        mode: isMarkdown(name) ? 0o400 : 0o500,
      });
      await pipeline(entry.stream(), out).catch((err: NodeJS.ErrnoException) => {
        if (err instanceof RaymondError) throw err;
        if (err.code === 'EEXIST')
          throw new RaymondError(
            'ERR_ZIP_INVALID',
            `entry "${entry.name}" has the name of another entry on this file system (names that differ only in case?); keep one`,
            { file: archive },
          );
        throw new RaymondError(
          'ERR_SCOPE',
          `cannot extract entry "${entry.name}" to ${folder.path}: ${err.code ?? err.message}`,
          { file: archive },
        );
      });
    }
    return folder;
  } catch (err) {
    await folder.remove();
    throw err;
  }
}
