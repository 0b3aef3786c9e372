import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { ScopeRef } from '../../machines/types.js';
import type { Grant } from '../language/grant.js';
import type { BackendSpec } from '../executors/executor.js';
import { extensionOf, isMarkdown } from './extensions.js';
import { entryOf, resolveTarget } from './resolve-target.js';
import { decodeUtf8 } from './utf8.js';
import { folderMentions } from './folder-mentions.js';

// The scope of state files read from disk: kept apart from scope.ts, which decides from what the
// user gave (folder, file, archive, YAML) which scope to open, and so cannot import it back.

/**
 * A scope whose state files are on disk: a folder, the folder of a state
 * file, or where an archive's were extracted. Shaped as scope.ts's Scope
 * (which openScope returns it as), like YamlScope.
 */
export class FileScope {
  readonly ref: ScopeRef;
  readonly name: string;
  /** Set by openScope from the workflow's manifest. */
  backend: BackendSpec | undefined;
  /** Set by openScope from the workflow's manifest. */
  grant: Grant | undefined;
  private readonly texts = new Map<string, Promise<string>>();
  /** The folder grant files are relative to and must stay inside: `dir`. */
  readonly folder: string;

  constructor(
    kind: ScopeRef['kind'],
    path: string,
    /** The state to start at, as the user wrote it (resolved like a target); else 1_START or START. */
    entry: string | undefined,
    private readonly files: ReadonlySet<string>,
    /** Reads a state file's bytes from `dir`. */
    private readonly readBytes: (file: string) => Promise<Buffer>,
    /** Directory holding the state files: the folder, or where an archive's were extracted. */
    private readonly dir: string,
    /** State file extensions of the platform the scope resolves for. */
    private readonly exts: readonly string[],
    /** Removes what was extracted, for an archive. */
    private readonly cleanup: (() => Promise<void>) | undefined,
    /** False for a scope a cross-workflow tag entered at a named state: it needs no entry of its own. */
    requireEntry: boolean,
  ) {
    this.name = sanitizeName(
      kind === 'dir' ? folderName(path) : basename(path).replace(/\.[^.]*$/, ''),
    );
    this.ref = { kind, path, entry: entryOf(files, exts, entry, path, requireEntry) };
    this.folder = dir;
  }

  resolve(target: string, source: string): string {
    return resolveTarget(this.files, this.exts, target, source, this.ref.path);
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
    return [...this.files].filter((f) => this.exts.includes(extensionOf(f) ?? '')).sort();
  }

  async fingerprints(): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const file of this.stateFiles()) {
      if (isMarkdown(file)) await this.readText(file);
      out[file] = createHash('sha256')
        .update(await this.readBytes(file))
        .digest('hex');
    }
    return out;
  }

  mentions(words: readonly string[]): Promise<boolean> {
    return folderMentions(this.dir, words);
  }

  display(file: string): string {
    return this.ref.kind === 'zip' ? `${this.ref.path}:${file}` : join(this.dir, file);
  }

  async dispose(): Promise<void> {
    await this.cleanup?.();
  }
}

/**
 * A folder workflow's name: the folder's, but a skill package's `states/`
 * folder (one beside a `workflow.yaml` manifest) takes the package's name, so
 * its runs are `approval-1a2b3c4d`, not `states-...`.
 */
function folderName(path: string): string {
  const parent = dirname(path);
  return basename(path) === 'states' && existsSync(join(parent, 'workflow.yaml'))
    ? basename(parent)
    : basename(path);
}

/** A name safe in a workflow id: letters, digits, `_` and `-`. */
function sanitizeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '') || 'workflow';
}
