import { constants, existsSync, type Stats } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { parseDocument } from 'yaml';
import { yamlData } from '../language/yaml-data.js';
import { RaymondError, errorMessage } from '../errors.js';
import { ENTRY_NAMES } from '../scope/scope.js';
import { STATE_EXTENSIONS, extensionOf } from '../scope/extensions.js';
import { readZipArchive } from '../scope/zip-archive.js';
import { MANIFEST, statesFolder } from '../scope/skill-package.js';

/** `input.mode` of a manifest: whether a run must, may or must not be given an input. */
export type InputMode = 'required' | 'optional' | 'none';

/** One workflow the server offers, with its manifest's metadata (defaults where it has none). */
export interface WorkflowEntry {
  id: string;
  name: string;
  description: string;
  input: { mode: InputMode; label: string; description: string };
  /** USD; 0: none given. */
  default_budget: number;
  requires_human_input: boolean;
  working_directory?: string;
  environment?: Record<string, string>;
  /** What a run starts: a folder (a skill package's `states/`), a `.zip` or a `.yaml` file. */
  path: string;
}

/** The largest zip whose manifest discovery reads (the size a zip workflow may have). */
const MAX_ZIP_BYTES = 256 * 2 ** 20;

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** A manifest's keys as an entry; throws with a message for a value `ray` would refuse. */
function fromManifest(m: Record<string, unknown>, fallbackId: string, path: string): WorkflowEntry {
  const input = (typeof m.input === 'object' && m.input !== null ? m.input : {}) as Record<
    string,
    unknown
  >;
  const mode = input.mode === undefined ? 'optional' : input.mode;
  if (mode !== 'required' && mode !== 'optional' && mode !== 'none')
    throw new Error(
      `input.mode must be one of required, optional, none; got ${JSON.stringify(mode)}`,
    );
  const human =
    m.requires_human_input === undefined
      ? 'auto'
      : typeof m.requires_human_input === 'string'
        ? m.requires_human_input
        : JSON.stringify(m.requires_human_input);
  if (!['auto', 'true', 'false'].includes(human))
    throw new Error(
      `requires_human_input must be one of auto, true, false; got ${JSON.stringify(m.requires_human_input)}`,
    );
  const budget = m.default_budget === undefined ? 0 : m.default_budget;
  if (typeof budget !== 'number' || !Number.isFinite(budget) || budget < 0)
    throw new Error(
      `default_budget must be a number of USD, 0 or more; got ${JSON.stringify(budget)}`,
    );
  const id = m.id === undefined ? fallbackId : m.id;
  if (typeof id !== 'string' || id === '' || /[/\\]/.test(id))
    throw new Error(`id must be a name without / or \\; got ${JSON.stringify(id)}`);
  const entry: WorkflowEntry = {
    id,
    name: text(m.name) || id,
    description: text(m.description),
    input: { mode, label: text(input.label), description: text(input.description) },
    default_budget: budget,
    // `auto` is false at discovery, as in `ray`: no states are scanned for asks.
    requires_human_input: human === 'true',
    path,
  };
  if (typeof m.working_directory === 'string' && m.working_directory !== '')
    entry.working_directory = m.working_directory;
  if (
    typeof m.environment === 'object' &&
    m.environment !== null &&
    !Array.isArray(m.environment)
  ) {
    entry.environment = Object.fromEntries(
      Object.entries(m.environment as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
    );
  }
  return entry;
}

function parseMapping(source: string): Record<string, unknown> {
  const doc = parseDocument(source);
  if (doc.errors.length > 0) throw doc.errors[0]!;
  const value = yamlData(doc, (message) => {
    throw new Error(message);
  });
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error('not a YAML mapping');
  return value as Record<string, unknown>;
}

function stem(name: string): string {
  return name.replace(/\.(zip|ya?ml)$/i, '');
}

function hasEntry(files: string[]): boolean {
  return files.some(
    (f) =>
      ENTRY_NAMES.includes(f.replace(/\.[^.]*$/, '')) &&
      STATE_EXTENSIONS.includes(extensionOf(f) ?? ''),
  );
}

function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'a FIFO';
  if (info.isDirectory()) return 'a folder';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a file';
}

/**
 * A regular file's bytes (at most `limit`, else an error). Opened with
 * O_NONBLOCK and checked on the open handle: a FIFO would otherwise wait
 * for a writer forever, holding one of the few threads all file reads
 * share, and a device would never end. Anything but a regular file is
 * refused with a message.
 */
async function readRegularFile(path: string, limit: number, tooLarge: string): Promise<Buffer> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (!info.isFile())
      throw new Error(
        `${basename(path)} is not a regular file (${kindOf(info)}); only regular files are read`,
      );
    if (info.size > limit) throw new Error(tooLarge);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** The most a manifest or YAML workflow read at discovery may be. */
const MAX_YAML_BYTES = 16 * 2 ** 20;

async function readYaml(path: string): Promise<string> {
  return (
    await readRegularFile(
      path,
      MAX_YAML_BYTES,
      'larger than 16 MiB, the most a workflow file may be',
    )
  ).toString('utf8');
}

async function isDir(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

async function folderEntry(dir: string): Promise<WorkflowEntry | undefined> {
  const files = await readdir(dir);
  if (files.includes(MANIFEST)) {
    // A skill package keeps its states in `states/`; a plain folder with a manifest has them beside it.
    return fromManifest(
      parseMapping(await readYaml(join(dir, MANIFEST))),
      basename(dir),
      await statesFolder(dir),
    );
  }
  return hasEntry(files) ? fromManifest({}, basename(dir), dir) : undefined;
}

/**
 * The manifest of a skill package (or a folder with a `workflow.yaml`) as
 * serve reads it, for `raymond PATH` to honour the same keys; undefined for
 * a folder without one. A manifest `ray` would refuse is one line naming it.
 */
export async function readFolderManifest(dir: string): Promise<WorkflowEntry | undefined> {
  if (!(await isDir(dir)) || !existsSync(join(dir, MANIFEST))) return undefined;
  try {
    return await folderEntry(dir);
  } catch (err) {
    throw new RaymondError('ERR_YAML_INVALID', err instanceof Error ? err.message : String(err), {
      file: join(dir, MANIFEST),
    });
  }
}

async function zipEntry(file: string): Promise<WorkflowEntry> {
  const entries = readZipArchive(
    await readRegularFile(
      file,
      MAX_ZIP_BYTES,
      'larger than 256 MiB, the most a zip workflow may be',
    ),
    file,
  );
  // The manifest at the top of the archive, or inside its one top folder.
  const manifest = entries.find(
    (e) => !e.isDirectory && /^(?:[^/\\]+[/\\])?workflow\.yaml$/.test(e.name) && e.size <= 1 << 20,
  );
  if (!manifest) return fromManifest({}, stem(basename(file)), file);
  const chunks: Buffer[] = [];
  for await (const chunk of manifest.stream()) chunks.push(chunk as Buffer);
  return fromManifest(
    parseMapping(Buffer.concat(chunks).toString('utf8')),
    stem(basename(file)),
    file,
  );
}

async function yamlEntry(file: string): Promise<WorkflowEntry | undefined> {
  const doc = parseMapping(await readYaml(file));
  if (typeof doc.states !== 'object' || doc.states === null) return undefined;
  return fromManifest(doc, stem(basename(file)), file);
}

/** What a scan found: the workflows by id, and a line for each entry it passed over. */
export interface Discovery {
  workflows: Map<string, WorkflowEntry>;
  warnings: string[];
}

/**
 * Scans each root's immediate entries, as `ray serve` does: a folder with a
 * `workflow.yaml` (a skill package runs its `states/`), a `.zip` with one
 * inside, a `.yaml` workflow with manifest keys beside `states`; and, beyond
 * `ray`, a workflow without a manifest (a folder with an entry state, a zip,
 * a YAML workflow), listed under its file name without extension. The first
 * workflow of an id wins; a later one, or one whose manifest is invalid, is
 * passed over with a warning.
 */
export async function discoverWorkflows(roots: readonly string[]): Promise<Discovery> {
  const workflows = new Map<string, WorkflowEntry>();
  const warnings: string[] = [];
  for (const root of roots) {
    const names = (
      await readdir(root).catch((err: unknown) => {
        warnings.push(`${root}: cannot read the folder: ${errorMessage(err)}`);
        return [] as string[];
      })
    ).sort();
    for (const name of names) {
      if (name.startsWith('.')) continue;
      const path = join(root, name);
      try {
        const entry = (await isDir(path))
          ? await folderEntry(path)
          : /\.zip$/i.test(name)
            ? await zipEntry(path)
            : /\.ya?ml$/i.test(name)
              ? await yamlEntry(path)
              : undefined;
        if (!entry) continue;
        const other = workflows.get(entry.id);
        if (other)
          warnings.push(
            `${path}: workflow id "${entry.id}" is already ${other.path}'s; this one is not served`,
          );
        else workflows.set(entry.id, entry);
      } catch (err) {
        warnings.push(`${path}: not served: ${errorMessage(err)}`);
      }
    }
  }
  return { workflows, warnings };
}

/** The workflows a server offers; `rescan` reads the roots again. */
export class WorkflowRegistry {
  private current = new Map<string, WorkflowEntry>();

  constructor(
    private readonly roots: readonly string[],
    private readonly warn: (line: string) => void,
  ) {}

  async rescan(): Promise<WorkflowEntry[]> {
    const found = await discoverWorkflows(this.roots);
    for (const w of found.warnings) this.warn(w);
    this.current = found.workflows;
    return this.list();
  }

  list(): WorkflowEntry[] {
    return [...this.current.values()].sort((a, b) => a.id.localeCompare(b.id));
  }

  get(id: string): WorkflowEntry | undefined {
    return this.current.get(id);
  }
}
