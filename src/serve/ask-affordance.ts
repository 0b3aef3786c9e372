/**
 * What an ask declares about files (its tag attributes read into an affordance) and the upload
 * caps that follow from it. Apart from ask-files.ts because it is pure data: run-json and the
 * routes read an ask's affordance without touching the disk.
 */

/** What an `<ask>` declared about files, as `ray serve`'s pending-asks JSON shows it. */
export interface FileAffordance {
  mode: 'slot' | 'bucket' | 'display_only';
  slots?: Array<{ name: string; mime?: string[] }>;
  bucket?: {
    max_count?: number;
    max_size_per_file?: number;
    max_total_size?: number;
    mime?: string[];
  };
  display_files?: Array<{ source_path: string; display_name?: string }>;
}

/** Upload caps: bytes per file, bytes per submission, files per submission. */
export interface UploadCaps {
  perFile: number;
  total: number;
  count: number;
}

/** `ray`'s fallbacks: 10 MiB per file, 100 MiB per submission, 10 files. */
export const DEFAULT_UPLOAD_CAPS: UploadCaps = {
  perFile: 10 * 2 ** 20,
  total: 100 * 2 ** 20,
  count: 10,
};

function list(value: string | undefined, split = ','): string[] {
  return (value ?? '')
    .split(split)
    .map((s) => s.trim())
    .filter(Boolean);
}

function positive(value: string | undefined): number | undefined {
  const n = Number(value);
  return value !== undefined && Number.isInteger(n) && n > 0 ? n : undefined;
}

/**
 * The file affordance of an ask's tag attributes (`upload_slots="cv.pdf:application/pdf"`,
 * `upload_bucket="true"` with its caps and `upload_mime`, `display_files="out/r.pdf:Report"`),
 * or undefined for a text-only ask.
 */
export function affordanceOf(
  files: Record<string, string> | undefined,
): FileAffordance | undefined {
  if (!files) return undefined;
  const display = list(files.display_files).map((d) => {
    const [source, label] = d.split(':');
    return {
      source_path: source!.trim(),
      ...(label?.trim() ? { display_name: label.trim() } : {}),
    };
  });
  const withDisplay = display.length > 0 ? { display_files: display } : {};
  if (files.upload_slots !== undefined) {
    const slots = list(files.upload_slots).map((s) => {
      const [name, mime] = s.split(':');
      const types = list(mime, '|');
      return { name: name!.trim(), ...(types.length > 0 ? { mime: types } : {}) };
    });
    return { mode: 'slot', slots, ...withDisplay };
  }
  if (files.upload_bucket === 'true') {
    const bucket: NonNullable<FileAffordance['bucket']> = {};
    const count = positive(files.upload_max_count);
    const size = positive(files.upload_max_size);
    const total = positive(files.upload_max_total_size);
    const mime = list(files.upload_mime);
    if (count) bucket.max_count = count;
    if (size) bucket.max_size_per_file = size;
    if (total) bucket.max_total_size = total;
    if (mime.length > 0) bucket.mime = mime;
    return { mode: 'bucket', bucket, ...withDisplay };
  }
  return display.length > 0 ? { mode: 'display_only', ...withDisplay } : undefined;
}

/** The caps of an ask: a bucket ask's own, else the server's (config), else `ray`'s fallbacks. */
export function capsOf(
  affordance: FileAffordance | undefined,
  server: Partial<UploadCaps>,
): UploadCaps {
  const b = affordance?.mode === 'bucket' ? affordance.bucket : undefined;
  return {
    perFile: b?.max_size_per_file ?? server.perFile ?? DEFAULT_UPLOAD_CAPS.perFile,
    total: b?.max_total_size ?? server.total ?? DEFAULT_UPLOAD_CAPS.total,
    count: b?.max_count ?? server.count ?? DEFAULT_UPLOAD_CAPS.count,
  };
}
