import { readFile, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve as resolvePath } from 'node:path';
import { RaymondError } from '../errors.js';
import type { ScopeRef } from '../../machines/types.js';
import {
  HOST_PLATFORM,
  STATE_EXTENSIONS,
  extensionOf,
  stateExtensions,
  type ScriptPlatform,
} from './extensions.js';
import { FileScope } from './file-scope.js';
import { folderBackend, folderGrant, manifestBackend, manifestGrant } from './backend-spec.js';
import type { BackendSpec } from '../executors/executor.js';
import type { Grant } from '../language/grant.js';
import { YamlScope, isYamlPath } from './yaml-scope.js';
import { extractStates } from './zip-extract.js';
import { localWorkflowPath } from './remote-zip.js';
import { checkZipHash } from './zip-hash.js';
import { MAX_ARCHIVE_BYTES, zipScopeFiles } from './zip-scope.js';
import { statesFolder } from './skill-package.js';

/**
 * The set of state files a workflow may use: the folder of a state file, a
 * folder, or a zip archive. Transitions resolve only inside it.
 */
export interface Scope {
  readonly ref: ScopeRef;
  /** Short name used in workflow ids. */
  readonly name: string;
  /** The agent CLI its markdown states run on (`backend:` of its manifest); absent: Claude Code. */
  readonly backend?: BackendSpec;
  /** The grant keys of its manifest: the defaults of its markdown states. */
  readonly grant?: Grant;
  /**
   * The folder the files a workflow names (grant files) are relative to and
   * must stay inside: the workflow's folder, a YAML workflow's, or where an
   * archive was extracted.
   */
  readonly folder: string;
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
  /**
   * Whether any of the workflow's files holds one of `words`: its state files
   * and the other files in its folder and the folders below (bounded:
   * src/scope/folder-mentions.ts); a YAML workflow, its own text.
   */
  mentions(words: readonly string[]): Promise<boolean>;
  /** Removes anything the scope extracted. */
  dispose(): Promise<void>;
  /** Warnings about a state file's definition (a YAML state's unknown keys), shown once per run. */
  stateWarnings?(file: string): string[];
  /** A script state's own timeout in ms, which replaces `--timeout` for it (YAML `timeout:`). */
  scriptTimeoutMs?(file: string): number | undefined;
}

/** How a scope is opened. */
export interface OpenOptions {
  /** Resolve script states as on this platform (`diagram --win`); the host's by default. */
  platform?: ScriptPlatform;
  /** False: a folder or package without `1_START`/`START` opens (a cross-workflow tag names the state). Default true. */
  requireEntry?: boolean;
}

export { ENTRY_NAMES } from './resolve-target.js';

async function readDirFiles(dir: string): Promise<Set<string>> {
  const entries = await readdir(dir, { withFileTypes: true });
  return new Set(entries.filter((e) => e.isFile() || e.isSymbolicLink()).map((e) => e.name));
}

/** `x.yaml/STATE`, `x.yml/STATE` or `x.zip/STATE`: a single-file scope and the state to start at. */
const SCOPE_AND_STATE = /^(.*\.(?:ya?ml|zip))[/\\]([^/\\]+)$/i;

/**
 * Opens the scope named by a specifier the user gave: a state file, a
 * folder, a `.zip`, a YAML workflow (`.yaml`/`.yml`), the URL of a hashed
 * `.zip` (downloaded once into the project's registry, whose copy becomes
 * the scope's path, so a resume needs no network), or `x.yaml/STATE` and
 * `x.zip/STATE` to start at STATE (split on the extension, not by looking
 * at the disk). Errors name the path and what is wrong with it.
 */
export async function openScope(input: string, opts: OpenOptions = {}): Promise<Scope> {
  const exts = stateExtensions(opts.platform ?? HOST_PLATFORM);
  const requireEntry = opts.requireEntry ?? true;
  const local = await localWorkflowPath(input, process.cwd());
  // A cached remote zip's problems name the cached file, which the user may have to remove.
  if (local !== input) return openScope(local, opts);
  const split = SCOPE_AND_STATE.exec(input);
  const scopeInput = split ? split[1]! : input;
  const entry = split?.[2];
  const path = resolvePath(scopeInput);
  if (isYamlPath(path)) return YamlScope.open(path, scopeInput, entry, exts, requireEntry);
  const info = await stat(path).catch(() => {
    throw new RaymondError('ERR_SCOPE', 'no such file or directory', { file: scopeInput });
  });
  if (info.isDirectory()) {
    // A skill package runs its states/, as serve runs it.
    const dir = await statesFolder(path);
    const files = await readDirFiles(dir);
    const scope = new FileScope(
      'dir',
      dir,
      undefined,
      files,
      (f) => readFile(join(dir, f)).catch(readError(join(dir, f))),
      dir,
      exts,
      undefined,
      requireEntry,
    );
    scope.backend = folderBackend(dir);
    scope.grant = folderGrant(dir);
    return scope;
  }
  if (path.toLowerCase().endsWith('.zip'))
    return openZip(path, scopeInput, info.size, entry, requireEntry);
  const name = basename(path);
  const ext = extensionOf(name);
  if (ext === undefined || !exts.includes(ext)) {
    throw new RaymondError(
      'ERR_SCOPE',
      `not a workflow: give a state file (${exts.join(', ')}), a folder, a .zip archive or a .yaml workflow`,
      { file: input },
    );
  }
  const dir = dirname(path);
  const scope = new FileScope(
    'file',
    path,
    name,
    await readDirFiles(dir),
    (f) => readFile(join(dir, f)).catch(readError(join(dir, f))),
    dir,
    exts,
    undefined,
    true,
  );
  scope.backend = folderBackend(dir);
  scope.grant = folderGrant(dir);
  return scope;
}

/** The specifier that reopens a run's scope on resume: archives and YAML files with the state they started at. */
export function resumeSpecifier(ref: ScopeRef): string {
  return ref.kind === 'zip' || ref.kind === 'yaml' ? `${ref.path}/${ref.entry}` : ref.path;
}

/**
 * An archive's state files are checked (layout, names, size caps) and then
 * extracted once into a private folder, where every step reads them.
 */
async function openZip(
  path: string,
  input: string,
  size: number,
  entry: string | undefined,
  requireEntry: boolean,
): Promise<Scope> {
  if (size > MAX_ARCHIVE_BYTES) {
    throw new RaymondError(
      'ERR_ZIP_INVALID',
      `the archive is ${Math.ceil(size / 2 ** 20)} MiB; archives of more than ${MAX_ARCHIVE_BYTES / 2 ** 20} MiB are refused`,
      { file: input },
    );
  }
  const data = await readFile(path);
  checkZipHash(basename(path), data, input);
  const files = zipScopeFiles(data, input);
  const folder = await extractStates(files, input);
  try {
    const read = (f: string) => readFile(join(folder.path, f)).catch(readError(`${path}:${f}`));
    const scope = new FileScope(
      'zip',
      path,
      entry,
      new Set(files.keys()),
      read,
      folder.path,
      STATE_EXTENSIONS,
      folder.remove,
      requireEntry,
    );
    const manifest = files.get('workflow.yaml');
    if (manifest) {
      const text = await streamText(manifest.stream());
      scope.backend = manifestBackend(text, `${path}:workflow.yaml`);
      scope.grant = manifestGrant(text, `${path}:workflow.yaml`);
    }
    return scope;
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

/** A zip entry's text. */
async function streamText(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
