import { readFile, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve as resolvePath } from 'node:path';
import { RaymondError } from '../errors.js';
import { checkStateName } from '../language/parse-output.js';
import type { ScopeRef } from '../../machines/types.js';
import { STATE_EXTENSIONS, extensionOf, isMarkdown } from './extensions.js';
import { createHash } from 'node:crypto';
import { extractStates } from './zip-extract.js';
import { localWorkflowPath } from './remote-zip.js';
import { checkZipHash } from './zip-hash.js';
import { MAX_ARCHIVE_BYTES, zipScopeFiles } from './zip-scope.js';

/**
 * The set of state files a workflow may use: the folder of a state file, a
 * folder, or a zip archive. Transitions resolve only inside it.
 */
export interface Scope {
  readonly ref: ScopeRef;
  /** Short name used in workflow ids. */
  readonly name: string;
  /** Resolves a target as written in a tag to a state file name of this scope. */
  resolve(target: string, source: string): string;
  /** The text of a state file (UTF-8). */
  readText(file: string): Promise<string>;
  /** A path that a shell can run for a script state. */
  scriptPath(file: string): Promise<string>;
  /** A human-readable location of a state file, for messages. */
  display(file: string): string;
  /** Every state file of the scope (with a supported extension), by name. */
  stateFiles(): string[];
  /** SHA-256 of each state file; reads (and so checks the UTF-8 of) every markdown state. */
  fingerprints(): Promise<Record<string, string>>;
  /** Removes anything the scope extracted. */
  dispose(): Promise<void>;
}

/** Names (without extension) of the state a folder starts at. */
export const ENTRY_NAMES: readonly string[] = ['1_START', 'START'];

class FileScope implements Scope {
  readonly ref: ScopeRef;
  readonly name: string;
  private readonly texts = new Map<string, Promise<string>>();

  constructor(
    kind: ScopeRef['kind'],
    path: string,
    entry: string | undefined,
    private readonly files: ReadonlySet<string>,
    /** Reads a state file's bytes from `dir`. */
    private readonly readBytes: (file: string) => Promise<Buffer>,
    /** Directory holding the state files: the folder, or where an archive's were extracted. */
    private readonly dir: string,
    /** Removes what was extracted, for an archive. */
    private readonly cleanup?: () => Promise<void>,
    /** False for a scope a cross-workflow tag entered at a named state: it needs no entry of its own. */
    requireEntry = true,
  ) {
    this.name = sanitizeName(kind === 'dir' ? basename(path) : basename(path).replace(/\.[^.]*$/, ''));
    this.ref = { kind, path, entry: entry ?? (requireEntry ? findEntry(files, path) : '') };
  }

  resolve(target: string, source: string): string {
    checkStateName(target, 'target', source);
    if (extensionOf(target) !== undefined) {
      if (!this.files.has(target)) {
        throw new RaymondError('ERR_STATE_NOT_FOUND', `target "${target}" does not exist in ${this.ref.path}`, { file: source });
      }
      if (!STATE_EXTENSIONS.includes(extensionOf(target)!)) {
        throw new RaymondError('ERR_STATE_UNSUPPORTED', `target "${target}" cannot run on this platform (supported: ${STATE_EXTENSIONS.join(', ')})`, { file: source });
      }
      return target;
    }
    const found = STATE_EXTENSIONS.map((ext) => target + ext).filter((f) => this.files.has(f));
    if (found.length === 0) {
      throw new RaymondError('ERR_STATE_NOT_FOUND', `target "${target}" matches no state in ${this.ref.path} (looked for ${STATE_EXTENSIONS.map((e) => target + e).join(', ')})`, { file: source });
    }
    if (found.length > 1) {
      throw new RaymondError('ERR_STATE_AMBIGUOUS', `target "${target}" is ambiguous: ${found.join(' and ')} both exist; name the file with its extension or remove one`, { file: source });
    }
    return found[0]!;
  }

  readText(file: string): Promise<string> {
    let text = this.texts.get(file);
    if (!text) {
      text = this.readBytes(file).then((bytes) => decodeUtf8(bytes, this.display(file)));
      this.texts.set(file, text);
    }
    return text;
  }

  async scriptPath(file: string): Promise<string> {
    return join(this.dir, file);
  }

  stateFiles(): string[] {
    return [...this.files].filter((f) => STATE_EXTENSIONS.includes(extensionOf(f) ?? '')).sort();
  }

  async fingerprints(): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const file of this.stateFiles()) {
      if (isMarkdown(file)) await this.readText(file);
      out[file] = createHash('sha256').update(await this.readBytes(file)).digest('hex');
    }
    return out;
  }

  display(file: string): string {
    return this.ref.kind === 'zip' ? `${this.ref.path}:${file}` : join(this.dir, file);
  }

  async dispose(): Promise<void> {
    await this.cleanup?.();
  }
}

function sanitizeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '') || 'workflow';
}

function decodeUtf8(bytes: Buffer, where: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new RaymondError('ERR_FILE_READ', 'is not valid UTF-8 text; save it as UTF-8', { file: where });
  }
}

/**
 * The entry state among a scope's files: `1_START` or `START`, with any
 * extension this platform runs.
 * @throws RaymondError ERR_ENTRY_NOT_FOUND or ERR_ENTRY_AMBIGUOUS naming `where`.
 */
export function findEntry(files: ReadonlySet<string>, where: string): string {
  const found = ENTRY_NAMES.flatMap((stem) => STATE_EXTENSIONS.map((ext) => stem + ext)).filter((f) => files.has(f));
  if (found.length === 0) {
    throw new RaymondError('ERR_ENTRY_NOT_FOUND', `no entry state: expected 1_START or START with one of ${STATE_EXTENSIONS.join(', ')}`, { file: where });
  }
  if (found.length > 1) {
    throw new RaymondError('ERR_ENTRY_AMBIGUOUS', `several entry states (${found.join(', ')}); keep exactly one`, { file: where });
  }
  return found[0]!;
}

async function readDirFiles(dir: string): Promise<Set<string>> {
  const entries = await readdir(dir, { withFileTypes: true });
  return new Set(entries.filter((e) => e.isFile() || e.isSymbolicLink()).map((e) => e.name));
}

/** How a scope is opened. */
export interface OpenOptions {
  /** False: a folder or archive without `1_START`/`START` opens (a cross-workflow tag names the state). Default true. */
  requireEntry?: boolean;
}

/**
 * Opens the scope named by a specifier the user gave: a state file, a
 * folder, a `.zip`, or the URL of a hashed `.zip` (downloaded once into the
 * project's registry, whose copy becomes the scope's path, so a resume needs
 * no network). Errors name the path and what is wrong with it.
 */
export async function openScope(input: string, options: OpenOptions = {}): Promise<Scope> {
  const requireEntry = options.requireEntry ?? true;
  const local = await localWorkflowPath(input, process.cwd());
  // A cached remote zip's problems name the cached file, which the user may have to remove.
  if (local !== input) return openScope(local, options);
  const path = resolvePath(input);
  const info = await stat(path).catch(() => {
    throw new RaymondError('ERR_SCOPE', 'no such file or directory', { file: input });
  });
  if (info.isDirectory()) {
    const files = await readDirFiles(path);
    return new FileScope('dir', path, undefined, files, (f) => readFile(join(path, f)).catch(readError(join(path, f))), path, undefined, requireEntry);
  }
  if (path.toLowerCase().endsWith('.zip')) return openZip(path, input, info.size, requireEntry);
  const name = basename(path);
  const ext = extensionOf(name);
  if (ext === undefined || !STATE_EXTENSIONS.includes(ext)) {
    throw new RaymondError('ERR_SCOPE', `not a workflow: give a state file (${STATE_EXTENSIONS.join(', ')}), a folder or a .zip archive`, { file: input });
  }
  const dir = dirname(path);
  return new FileScope('file', path, name, await readDirFiles(dir), (f) => readFile(join(dir, f)).catch(readError(join(dir, f))), dir);
}

/**
 * An archive's state files are checked (layout, names, size caps) and then
 * extracted once into a private folder, where every step reads them.
 */
async function openZip(path: string, input: string, size: number, requireEntry: boolean): Promise<Scope> {
  if (size > MAX_ARCHIVE_BYTES) {
    throw new RaymondError('ERR_ZIP_INVALID', `the archive is ${Math.ceil(size / 2 ** 20)} MiB; archives of more than ${MAX_ARCHIVE_BYTES / 2 ** 20} MiB are refused`, { file: input });
  }
  const data = await readFile(path);
  checkZipHash(basename(path), data, input);
  const files = zipScopeFiles(data, input);
  const folder = await extractStates(files, input);
  try {
    const read = (f: string) => readFile(join(folder.path, f)).catch(readError(`${path}:${f}`));
    return new FileScope('zip', path, undefined, new Set(files.keys()), read, folder.path, folder.remove, requireEntry);
  } catch (err) {
    await folder.remove();
    throw err;
  }
}

function readError(file: string) {
  return (err: NodeJS.ErrnoException): never => {
    throw new RaymondError('ERR_FILE_READ', `cannot read: ${err.code ?? err.message}`, { file });
  };
}
