import { RaymondError } from '../errors.js';
import { STATE_EXTENSIONS, extensionOf } from './extensions.js';
import { readZipArchive, type ZipEntry } from './zip-archive.js';

const MiB = 2 ** 20;
/** Most bytes one state file of an archive may hold, uncompressed. */
export const MAX_STATE_BYTES = 64 * MiB;
/** Most bytes the state files of an archive may hold together, uncompressed. */
export const MAX_TOTAL_BYTES = 256 * MiB;
/** Largest archive file Raymond opens (it is read into memory). */
export const MAX_ARCHIVE_BYTES = 256 * MiB;

/** Whether a bare file name is a state this platform runs, so it is extracted. */
export function isStateFile(name: string): boolean {
  return STATE_EXTENSIONS.includes(extensionOf(name) ?? '');
}

/**
 * What macOS Finder adds to the archives it makes ("Compress"): resource
 * forks under a top `__MACOSX/` folder, and `.DS_Store` files of folder
 * settings. They are never part of a workflow.
 */
function isFinderClutter(parts: readonly string[]): boolean {
  return parts[0] === '__MACOSX' || parts.at(-1) === '.DS_Store';
}

/**
 * Checks an archive's layout and returns its files by bare name. Two layouts
 * are accepted: every file at the top (flat), or every file inside one top
 * folder; `/` and `\` both separate folders. What Finder adds (`__MACOSX/`,
 * `.DS_Store`) is passed over. Anything else, any absolute or
 * `..` entry, two entries that come to the same name, and state files over
 * the size caps (as the archive declares them; reading never goes past a
 * declared size) are refused with ERR_ZIP_INVALID naming the entry.
 */
export function zipScopeFiles(data: Buffer, file: string): Map<string, ZipEntry> {
  const refuse = (message: string): never => {
    throw new RaymondError('ERR_ZIP_INVALID', message, { file });
  };
  const entries = readZipArchive(data, file);
  for (const e of entries) {
    const parts = e.name.split(/[\\/]/);
    if (
      e.name.startsWith('/') ||
      e.name.startsWith('\\') ||
      /^[A-Za-z]:/.test(e.name) ||
      parts.includes('..')
    ) {
      refuse(`unsafe entry "${e.name}" (absolute or with ..); refusing the archive`);
    }
  }
  const split = entries
    .map((entry) => ({ entry, parts: entry.name.split(/[\\/]/) }))
    .filter((s) => s.parts.at(-1) !== '' && !isFinderClutter(s.parts));
  if (split.length === 0) refuse('the archive holds no files');
  const flat = split.every((s) => s.parts.length === 1);
  const folder = split[0]!.parts[0]!;
  const single = split.every((s) => s.parts.length === 2 && s.parts[0] === folder);
  if (!flat && !single) {
    refuse(
      'unsupported layout: put every state file at the top of the archive or inside one top folder, with no subfolders',
    );
  }
  const out = new Map<string, ZipEntry>();
  let total = 0;
  for (const { entry, parts } of split) {
    const name = parts.at(-1)!;
    const other = out.get(name);
    if (other)
      refuse(`entries "${other.name}" and "${entry.name}" are both the file ${name}; keep one`);
    out.set(name, entry);
    if (!isStateFile(name)) continue;
    if (entry.size > MAX_STATE_BYTES)
      refuse(
        `entry "${entry.name}" is ${mebibytes(entry.size)} uncompressed; a state file may be at most ${mebibytes(MAX_STATE_BYTES)}`,
      );
    total += entry.size;
    if (total > MAX_TOTAL_BYTES)
      refuse(
        `the state files come to more than ${mebibytes(MAX_TOTAL_BYTES)} uncompressed (at entry "${entry.name}"), the most an archive may hold`,
      );
  }
  return out;
}

function mebibytes(bytes: number): string {
  return `${(bytes / MiB).toFixed(bytes % MiB === 0 ? 0 : 1)} MiB`;
}
