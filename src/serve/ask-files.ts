import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import {
  copyFile,
  lstat,
  mkdir,
  open,
  readFile,
  realpath,
  rename,
  writeFile,
} from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { isAbsolute, join, relative, sep } from 'node:path';
import { errorMessage } from '../errors.js';
import type { FileAffordance } from './ask-affordance.js';
import { HttpError } from './http-error.js';

/** A file of an ask: staged for display, or uploaded with the answer. */
export interface FileRecord {
  name: string;
  size: number;
  content_type: string;
  source: 'display' | 'upload';
}

/** Types a file may be shown inline as (`?disposition=inline`); never HTML, SVG or anything that runs script. */
const INLINE_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'application/pdf',
]);

/** Where an ask's files live: `<task folder>/asks/<ask_id>/`. */
export function askFolder(taskFolder: string, askId: string): string {
  return join(taskFolder, 'asks', askId);
}

/** The catalog of an ask's files, kept in its folder so it outlives the server. */
const CATALOG = '.raymond-files.json';

/** The type of a file from its first bytes (never from its name or what a client said). */
export function sniffType(head: Buffer): string {
  const starts = (sig: number[], at = 0) => sig.every((b, i) => head[at + i] === b);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (
    head.subarray(0, 6).toString('latin1') === 'GIF87a' ||
    head.subarray(0, 6).toString('latin1') === 'GIF89a'
  )
    return 'image/gif';
  if (
    head.subarray(0, 4).toString('latin1') === 'RIFF' &&
    head.subarray(8, 12).toString('latin1') === 'WEBP'
  )
    return 'image/webp';
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  if (starts([0x50, 0x4b, 0x03, 0x04])) return 'application/zip';
  const textStart = head.toString('utf8').trimStart().slice(0, 64).toLowerCase();
  if (
    textStart.startsWith('<!doctype html') ||
    textStart.startsWith('<html') ||
    textStart.startsWith('<script')
  )
    return 'text/html';
  if (
    textStart.startsWith('<svg') ||
    (textStart.startsWith('<?xml') && head.toString('utf8').includes('<svg'))
  )
    return 'image/svg+xml';
  if (textStart.startsWith('<?xml')) return 'text/xml';
  // Text: no NUL and valid UTF-8 in what was read.
  if (!head.includes(0) && Buffer.from(head.toString('utf8'), 'utf8').equals(head))
    return 'text/plain';
  return 'application/octet-stream';
}

/**
 * Refuses a file name an upload or a display label may not have: empty,
 * a path (`/`, `\`), `.` or `..` or any leading dot, NUL or control
 * characters, a Windows reserved name. Nothing is renamed silently.
 */
export function fileNameProblem(name: string): string | undefined {
  if (name === '') return 'is empty';
  if (/[/\\]/.test(name)) return 'holds a path separator';
  if (name.startsWith('.')) return 'starts with a dot';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'holds a control character';
  if (/^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i.test(name)) return 'is a reserved name';
  if (name.length > 255) return 'is longer than 255 characters';
  return undefined;
}

async function head(path: string): Promise<Buffer> {
  const f = await open(path, 'r');
  try {
    const buf = Buffer.alloc(512);
    const { bytesRead } = await f.read(buf, 0, 512, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await f.close();
  }
}

/** The record of a file now in an ask's folder, its type sniffed once, here. */
export async function recordOf(
  path: string,
  name: string,
  source: FileRecord['source'],
): Promise<FileRecord> {
  const info = await lstat(path);
  return { name, size: info.size, content_type: sniffType(await head(path)), source };
}

/** The catalog of an ask's folder: every file staged or uploaded, or undefined if there is none. */
export async function readCatalog(dir: string): Promise<FileRecord[] | undefined> {
  const text = await readFile(join(dir, CATALOG), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    return Array.isArray(value) ? (value as FileRecord[]) : undefined;
  } catch {
    return undefined;
  }
}

/** Writes a catalog atomically (a temporary file renamed), so a reader never sees half of one. */
export async function writeCatalog(dir: string, records: FileRecord[]): Promise<void> {
  const tmp = join(dir, `${CATALOG}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  await writeFile(tmp, JSON.stringify(records));
  await rename(tmp, join(dir, CATALOG));
}

/** Whether `path` (resolved, symlinks followed) lies inside `dir`. */
async function inside(dir: string, path: string): Promise<boolean> {
  const [realDir, real] = await Promise.all([realpath(dir), realpath(path)]);
  const rel = relative(realDir, real);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/**
 * Copies an ask's display files from the agent's task folder into the ask's
 * folder, once (a catalog already there is kept: staging again after a
 * restart changes nothing). A source outside the task folder (absolute,
 * `..`, a symlink leading out) or missing is not copied; the problems come
 * back as lines for the run's log and the pending ask's `staging_errors`.
 */
export async function stageDisplayFiles(
  taskFolder: string,
  askId: string,
  affordance: FileAffordance | undefined,
): Promise<{ files: FileRecord[]; problems: string[] }> {
  const dir = askFolder(taskFolder, askId);
  const existing = await readCatalog(dir);
  if (existing) return { files: existing, problems: [] };
  await mkdir(dir, { recursive: true });
  const files: FileRecord[] = [];
  const problems: string[] = [];
  for (const d of affordance?.display_files ?? []) {
    const name = d.display_name ?? d.source_path.split(/[/\\]/).pop() ?? '';
    const bad = fileNameProblem(name);
    const source = join(taskFolder, d.source_path);
    try {
      if (bad) throw new Error(`the display name "${name}" ${bad}`);
      if (isAbsolute(d.source_path) || d.source_path.split(/[/\\]/).includes('..'))
        throw new Error('is not a path inside the task folder');
      if (!(await inside(taskFolder, source))) throw new Error('leads out of the task folder');
      if (files.some((f) => f.name === name)) throw new Error(`"${name}" is staged twice`);
      await copyFile(source, join(dir, name));
      files.push(await recordOf(join(dir, name), name, 'display'));
    } catch (err) {
      problems.push(
        `display file "${d.source_path}" of ask ${askId}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file in the task folder' : errorMessage(err)}`,
      );
    }
  }
  await writeCatalog(dir, files);
  return { files, problems };
}

/**
 * Serves one file of an ask's catalog from its folder: the type recorded
 * when it arrived, `nosniff`, a CSP that runs nothing, and `inline` only
 * when asked for and the type is an image or a PDF. A path with `..`, a
 * separator or a leading dot is refused (400 `path_escape`) before the
 * catalog is looked at, and so is a file that resolves outside the folder.
 */
export async function serveAskFile(
  res: ServerResponse,
  dir: string,
  catalog: FileRecord[],
  name: string,
  wantInline: boolean,
): Promise<void> {
  if (
    name.split(/[/\\]/).some((p) => p === '..') ||
    isAbsolute(name) ||
    name.includes(sep) ||
    name.includes('/') ||
    name.includes('\0')
  ) {
    throw new HttpError(400, 'path_escape', `file path "${name}" leads out of the ask's folder`);
  }
  const record = catalog.find((f) => f.name === name);
  if (!record) throw new HttpError(404, 'file_not_found', `no file "${name}" in this ask`);
  const path = join(dir, name);
  if (!(await inside(dir, path).catch(() => false)))
    throw new HttpError(400, 'path_escape', `file "${name}" leads out of the ask's folder`);
  const info = await lstat(path);
  const disposition = wantInline && INLINE_TYPES.has(record.content_type) ? 'inline' : 'attachment';
  res.writeHead(200, {
    'Content-Type': record.content_type || 'application/octet-stream',
    'Content-Length': info.size,
    'Content-Disposition': `${disposition}; filename="${name.replace(/["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`,
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; sandbox",
    'Cache-Control': 'no-store',
  });
  await new Promise<void>((resolve, reject) => {
    createReadStream(path).on('error', reject).on('end', resolve).pipe(res);
  });
}
