import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import {
  fileNameProblem,
  readCatalog,
  sniffType,
  writeCatalog,
  type FileRecord,
} from './ask-files.js';
import type { FileAffordance, UploadCaps } from './ask-affordance.js';
import { HttpError, readBody } from './http-error.js';

/** One part of a multipart body. */
interface Part {
  field: string;
  filename?: string;
  body: Buffer;
}

/** Room for the parts' headers and boundaries beyond the files' own bytes. */
const MULTIPART_OVERHEAD = 1 << 20;

function refuse(status: number, constraint: string, message: string): HttpError {
  return new HttpError(status, constraint, message, { constraint });
}

/** Splits a `multipart/form-data` body into its parts. */
export function parseMultipart(body: Buffer, contentType: string): Part[] {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  const boundary = m?.[1] ?? m?.[2];
  if (!boundary) throw refuse(400, 'multipart', 'multipart body without a boundary');
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: Part[] = [];
  let at = body.indexOf(delimiter);
  if (at < 0) throw refuse(400, 'multipart', 'multipart body without its boundary');
  for (;;) {
    at += delimiter.length;
    if (body.subarray(at, at + 2).toString() === '--') return parts;
    at += 2; // CRLF after the boundary
    const headerEnd = body.indexOf('\r\n\r\n', at);
    if (headerEnd < 0) throw refuse(400, 'multipart', 'a multipart part has no end of headers');
    const headers = body.subarray(at, headerEnd).toString('utf8');
    const next = body.indexOf(Buffer.from(`\r\n--${boundary}`), headerEnd + 4);
    if (next < 0) throw refuse(400, 'multipart', 'a multipart part has no closing boundary');
    const disposition = /content-disposition:([^\r\n]*)/i.exec(headers)?.[1] ?? '';
    const field = /\bname="([^"]*)"/i.exec(disposition)?.[1];
    const filename = /\bfilename="([^"]*)"/i.exec(disposition)?.[1];
    if (field === undefined) throw refuse(400, 'multipart', 'a multipart part has no name');
    parts.push({
      field,
      ...(filename !== undefined ? { filename } : {}),
      body: body.subarray(headerEnd + 4, next),
    });
    at = next + 2;
  }
}

/**
 * Slot mode wants each declared slot once: `fields` are the names of the
 * answer's file parts (none for an answer sent as JSON, which therefore
 * cannot skip a slot). Other modes have no slots to check.
 */
export function checkSlots(
  affordance: FileAffordance | undefined,
  fields: readonly string[],
): void {
  if (affordance?.mode !== 'slot') return;
  const declared = new Set(affordance.slots!.map((s) => s.name));
  const seen = new Map<string, number>();
  for (const field of fields) {
    if (!declared.has(field)) throw refuse(400, 'slot_extra', `unexpected slot "${field}"`);
    seen.set(field, (seen.get(field) ?? 0) + 1);
    if (seen.get(field)! > 1)
      throw refuse(
        400,
        'slot_extra',
        `slot "${field}" has more than one file; expected exactly one`,
      );
  }
  for (const name of declared)
    if (!seen.has(name)) throw refuse(400, 'slot_missing', `slot "${name}" is required`);
}

/** What a multipart answer holds: its text and the files it uploaded (validated, not yet on disk). */
export interface UploadSubmission {
  response: string;
  files: Array<{ name: string; body: Buffer; content_type: string }>;
}

/**
 * Reads and checks a multipart answer against its ask, as `ray serve` does:
 * slot mode wants each declared slot once (the field names the file), bucket
 * mode takes the parts' file names within its count, size and MIME caps; a
 * text-only or display-only ask takes no file. Names are checked, never
 * rewritten; two parts of one name, or one named as a staged display file,
 * are a 409. Types are sniffed from the bytes.
 */
export async function readSubmission(
  req: IncomingMessage,
  affordance: FileAffordance | undefined,
  caps: UploadCaps,
  staged: readonly FileRecord[],
): Promise<UploadSubmission> {
  const body = await readBody(req, caps.total + MULTIPART_OVERHEAD, 'max_total_size');
  const parts = parseMultipart(body, req.headers['content-type'] ?? '');
  const response =
    parts.find((p) => p.field === 'response' && p.filename === undefined)?.body.toString('utf8') ??
    '';
  const fileParts = parts.filter((p) => p.filename !== undefined);
  const mode = affordance?.mode;
  if (fileParts.length > 0 && mode !== 'slot' && mode !== 'bucket')
    throw refuse(400, 'slot_extra', 'this ask takes no files');
  checkSlots(
    affordance,
    fileParts.map((p) => p.field),
  );
  if (mode === 'bucket' && fileParts.length > caps.count)
    throw refuse(
      400,
      'max_count',
      `the answer has ${fileParts.length} files; at most ${caps.count}`,
    );
  const names = new Set<string>();
  const stagedNames = new Set(staged.map((f) => f.name));
  const files: UploadSubmission['files'] = [];
  let total = 0;
  for (const p of fileParts) {
    const name = mode === 'slot' ? p.field : p.filename!;
    const bad = fileNameProblem(name);
    if (bad) throw refuse(400, 'filename', `file name "${name}" ${bad}`);
    if (names.has(name))
      throw refuse(409, 'duplicate_filename', `two files named "${name}" in one answer`);
    if (stagedNames.has(name))
      throw refuse(
        409,
        'collision_with_staged',
        `"${name}" is the name of a file shown with the ask`,
      );
    names.add(name);
    if (p.body.length > caps.perFile)
      throw refuse(
        400,
        'max_file_size',
        `file "${name}" is ${p.body.length} bytes; at most ${caps.perFile}`,
      );
    total += p.body.length;
    if (total > caps.total)
      throw refuse(
        400,
        'max_total_size',
        `the files are ${total} bytes together; at most ${caps.total}`,
      );
    const type = sniffType(p.body.subarray(0, 512));
    const allowed =
      mode === 'slot'
        ? affordance!.slots!.find((s) => s.name === name)?.mime
        : affordance?.bucket?.mime;
    if (allowed && allowed.length > 0 && !allowed.some((a) => a.toLowerCase() === type)) {
      throw refuse(
        400,
        'mime_not_allowed',
        `file "${name}" is ${type}; allowed: ${allowed.join(', ')}`,
      );
    }
    files.push({ name, body: p.body, content_type: type });
  }
  return { response, files };
}

/**
 * Puts an answer's files into the ask's folder all at once: written into a
 * `.staging-*` folder there, then renamed into place and added to the
 * catalog, so a failed answer leaves the folder as it was.
 */
export async function storeUploads(
  dir: string,
  files: UploadSubmission['files'],
): Promise<FileRecord[]> {
  if (files.length === 0) return [];
  await mkdir(dir, { recursive: true });
  const staging = await mkdtemp(join(dir, '.staging-'));
  try {
    for (const f of files) await writeFile(join(staging, f.name), f.body, { flag: 'wx' });
    const records: FileRecord[] = files.map((f) => ({
      name: f.name,
      size: f.body.length,
      content_type: f.content_type,
      source: 'upload',
    }));
    for (const f of files) await rename(join(staging, f.name), join(dir, f.name));
    await writeCatalog(dir, [...((await readCatalog(dir)) ?? []), ...records]);
    return records;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
