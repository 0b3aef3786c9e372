import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { MANIFEST_FILE, convertToYaml } from '../analysis/convert-workflow.js';
import { RaymondError } from '../errors.js';
import { extensionOf } from '../scope/extensions.js';
import { MAX_ARCHIVE_BYTES, MAX_STATE_BYTES, zipScopeFiles } from '../scope/zip-scope.js';
import { EXIT } from './exit-codes.js';

/** Files a conversion reads: state files of every platform, and the manifest. */
function wanted(name: string): boolean {
  return extensionOf(name) !== undefined || name === MANIFEST_FILE;
}

async function folderFiles(dir: string): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (!e.isDirectory() && wanted(e.name)) out.set(e.name, await readFile(join(dir, e.name)));
  }
  return out;
}

async function zipFiles(
  path: string,
  input: string,
  size: number,
): Promise<Map<string, Uint8Array>> {
  if (size > MAX_ARCHIVE_BYTES)
    throw new RaymondError(
      'ERR_ZIP_INVALID',
      `the archive is more than ${MAX_ARCHIVE_BYTES / 2 ** 20} MiB`,
      { file: input },
    );
  const out = new Map<string, Uint8Array>();
  for (const [name, entry] of zipScopeFiles(await readFile(path), input)) {
    if (!wanted(name)) continue;
    if (entry.size > MAX_STATE_BYTES)
      throw new RaymondError('ERR_ZIP_INVALID', `entry "${entry.name}" is too large to convert`, {
        file: input,
      });
    out.set(name, await buffer(entry.stream()));
  }
  return out;
}

/**
 * `raymond convert DIR|ZIP [--output FILE]`: writes the workflow as one
 * YAML file (to stdout without --output). Nothing is written when the
 * workflow cannot be converted faithfully.
 */
export async function convertCommand(input: string, opts: { output?: string }): Promise<number> {
  const info = await stat(input).catch(() => {
    throw new RaymondError('ERR_SCOPE', 'no such file or directory', { file: input });
  });
  const isZip = !info.isDirectory() && input.toLowerCase().endsWith('.zip');
  if (!info.isDirectory() && !isZip)
    throw new RaymondError('ERR_USAGE', 'convert takes a workflow folder or a .zip archive', {
      file: input,
    });
  const files = isZip ? await zipFiles(input, input, info.size) : await folderFiles(input);
  const yaml = convertToYaml(files, (file) =>
    file === '' ? input : isZip ? `${input}:${file}` : join(input, file),
  );
  if (opts.output === undefined) {
    process.stdout.write(yaml);
    return EXIT.completed;
  }
  await writeFile(opts.output, yaml).catch((err: NodeJS.ErrnoException) => {
    throw new RaymondError('ERR_USAGE', `cannot write: ${err.code ?? err.message}`, {
      file: opts.output,
    });
  });
  process.stdout.write(`wrote ${opts.output} (${basename(input)} as YAML)\n`);
  return EXIT.completed;
}
