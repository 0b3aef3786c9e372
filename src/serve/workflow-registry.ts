import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { errorMessage } from '../errors.js';
import { folderEntry, isDir } from '../scope/folder-manifest.js';
import { readRegularFile } from '../scope/regular-file.js';
import {
  manifestEntry,
  parseMapping,
  readYaml,
  type WorkflowEntry,
} from '../scope/workflow-manifest.js';
import { readZipArchive } from '../scope/zip-archive.js';

/** The largest zip whose manifest discovery reads (the size a zip workflow may have). */
const MAX_ZIP_BYTES = 256 * 2 ** 20;

function stem(name: string): string {
  return name.replace(/\.(zip|ya?ml)$/i, '');
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
  if (!manifest) return manifestEntry({}, stem(basename(file)), file);
  const chunks: Buffer[] = [];
  for await (const chunk of manifest.stream()) chunks.push(chunk as Buffer);
  return manifestEntry(
    parseMapping(Buffer.concat(chunks).toString('utf8')),
    stem(basename(file)),
    file,
  );
}

async function yamlEntry(file: string): Promise<WorkflowEntry | undefined> {
  const doc = parseMapping(await readYaml(file));
  if (typeof doc.states !== 'object' || doc.states === null) return undefined;
  return manifestEntry(doc, stem(basename(file)), file);
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
