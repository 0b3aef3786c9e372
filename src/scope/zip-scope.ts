import { RaymondError } from '../errors.js';
import { readZipArchive } from './zip-archive.js';

/**
 * Checks an archive's layout and returns its state files by bare name. Two
 * layouts are accepted: every file at the top (flat), or every file inside one
 * top folder. Anything else, and any absolute or `..` entry, is refused.
 */
export function zipScopeFiles(data: Buffer, file: string): Map<string, () => Buffer> {
  const entries = readZipArchive(data, file);
  for (const e of entries) {
    const parts = e.name.split(/[\\/]/);
    if (e.name.startsWith('/') || e.name.startsWith('\\') || /^[A-Za-z]:/.test(e.name) || parts.includes('..')) {
      throw new RaymondError('ERR_ZIP_INVALID', `unsafe entry "${e.name}" (absolute or with ..); refusing the archive`, { file });
    }
  }
  const files = entries.filter((e) => !e.isDirectory);
  if (files.length === 0) throw new RaymondError('ERR_ZIP_INVALID', 'the archive holds no files', { file });
  const split = files.map((e) => ({ entry: e, parts: e.name.split('/') }));
  const flat = split.every((s) => s.parts.length === 1);
  const folder = split[0]!.parts[0]!;
  const single = split.every((s) => s.parts.length === 2 && s.parts[0] === folder);
  if (!flat && !single) {
    throw new RaymondError('ERR_ZIP_INVALID', 'unsupported layout: put every state file at the top of the archive or inside one top folder, with no subfolders', { file });
  }
  const out = new Map<string, () => Buffer>();
  for (const s of split) out.set(s.parts.at(-1)!, () => s.entry.read());
  return out;
}
