import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { ScopeRef } from '../../machines/types.js';
import { parseBackend } from '../agents/registry/parse-backend.js';
import type { BackendSpec } from '../executors/executor.js';
import { readGrant, type Grant } from '../language/grant.js';
import { RaymondError } from '../errors.js';
import { stateTimeoutMs } from '../timer-delay.js';
import { extensionOf, isMarkdown } from './extensions.js';
import {
  createPrivateFolder,
  type PrivateFolder,
  type PrivateFolderKind,
} from '../private-folder.js';
import { entryOf, resolveTarget } from './resolve-target.js';
import { decodeUtf8 } from './utf8.js';
import { POLICY_KEYS, SCRIPT_KEYS, parseYamlWorkflow, type YamlState } from './yaml-workflow.js';

/** YAML scopes: the script states, written out so a shell can run them. */
const YAML_FOLDER: PrivateFolderKind = {
  name: 'yaml',
  purpose: "to write the workflow's scripts into",
  code: 'ERR_SCOPE',
};

const KNOWN = ['prompt', ...SCRIPT_KEYS, ...POLICY_KEYS].join(', ');

/**
 * A single-file YAML workflow, presented as virtual state files: `NAME.md`
 * (the policy as synthesized frontmatter, then the prompt) and
 * `NAME.sh`/`.ps1`/`.bat`. The file is parsed and checked once, when opened.
 */
export class YamlScope {
  readonly ref: ScopeRef;
  readonly name: string;
  /** `backend:` at the top of the file. */
  readonly backend: BackendSpec | undefined;
  /** The grant keys at the top of the file: its markdown states' defaults. */
  readonly grant: Grant | undefined;
  /** The folder the YAML file is in: grant files are relative to it and must stay inside it. */
  readonly folder: string;
  private readonly texts = new Map<string, string>();
  private readonly stateOf = new Map<string, YamlState>();
  private scripts: Promise<PrivateFolder> | undefined;

  private constructor(
    path: string,
    private readonly bytes: Buffer,
    /** The manifest keys present at the top level (`id`, `name`, ...): for the server, ignored by runs. */
    readonly manifest: Readonly<Record<string, unknown>>,
    states: YamlState[],
    private readonly exts: readonly string[],
    entry: string | undefined,
    input: string,
    requireEntry: boolean,
  ) {
    this.backend = parseBackend(manifest.backend, input);
    this.grant = readGrant(manifest, input, 'ERR_YAML_INVALID');
    this.name =
      basename(path)
        .replace(/\.[^.]*$/, '')
        .replace(/[^A-Za-z0-9_-]+/g, '-')
        .replace(/^-+|-+$/g, '') || 'workflow';
    for (const state of states) {
      for (const [file, text] of state.files) {
        this.texts.set(file, text);
        this.stateOf.set(file, state);
      }
    }
    const files = new Set(this.texts.keys());
    this.ref = { kind: 'yaml', path, entry: entryOf(files, exts, entry, input, requireEntry) };
    this.folder = dirname(path);
  }

  /** Reads, parses and checks the YAML workflow at `path` (`input` as the user wrote it, for messages). */
  static async open(
    path: string,
    input: string,
    entry: string | undefined,
    exts: readonly string[],
    requireEntry = true,
  ): Promise<YamlScope> {
    const bytes = await readFile(path).catch((err: NodeJS.ErrnoException) => {
      throw new RaymondError(
        err.code === 'ENOENT' ? 'ERR_SCOPE' : 'ERR_FILE_READ',
        err.code === 'ENOENT'
          ? 'no such file or directory'
          : `cannot read: ${err.code ?? err.message}`,
        { file: input },
      );
    });
    const workflow = parseYamlWorkflow(decodeUtf8(bytes, input), input);
    return new YamlScope(
      path,
      bytes,
      workflow.manifest,
      workflow.states,
      exts,
      entry,
      input,
      requireEntry,
    );
  }

  resolve(target: string, source: string): string {
    return resolveTarget(new Set(this.texts.keys()), this.exts, target, source, this.ref.path);
  }

  async readText(file: string): Promise<string> {
    const text = this.texts.get(file);
    if (text === undefined)
      throw new RaymondError('ERR_STATE_NOT_FOUND', `no state file "${file}" in this workflow`, {
        file: this.ref.path,
      });
    return text;
  }

  /** Every script is written once, read-only, on the first call; later calls reuse the folder. */
  async scriptPath(file: string): Promise<string> {
    await this.readText(file);
    this.scripts ??= this.writeScripts();
    return join((await this.scripts).path, file);
  }

  private async writeScripts(): Promise<PrivateFolder> {
    const folder = await createPrivateFolder(YAML_FOLDER);
    try {
      for (const [file, text] of this.texts) {
        if (!isMarkdown(file))
          await writeFile(join(folder.path, file), text, { flag: 'wx', mode: 0o500 });
      }
      return folder;
    } catch (err) {
      await folder.remove();
      throw new RaymondError(
        'ERR_SCOPE',
        `cannot write the workflow's scripts to ${folder.path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
        { file: this.ref.path },
      );
    }
  }

  display(file: string): string {
    return file === basename(this.ref.path) ? this.ref.path : `${this.ref.path}:${file}`;
  }

  stateFiles(): string[] {
    return [...this.texts.keys()].filter((f) => this.exts.includes(extensionOf(f) ?? '')).sort();
  }

  async mentions(words: readonly string[]): Promise<boolean> {
    return words.some((w) => this.bytes.includes(w));
  }

  /** One fingerprint, of the whole file: any edit (a policy, a timeout, the manifest) counts. */
  async fingerprints(): Promise<Record<string, string>> {
    return { [basename(this.ref.path)]: createHash('sha256').update(this.bytes).digest('hex') };
  }

  /** Unknown keys of the state: tolerated, shown once per run and by lint. */
  stateWarnings(file: string): string[] {
    const state = this.stateOf.get(file);
    return (state?.unknownKeys ?? []).map(
      (k) => `unknown key "${k}" in state "${state!.name}" (known: ${KNOWN})`,
    );
  }

  /** A script state's own `timeout:`, which replaces `--timeout` (a markdown state's is in its frontmatter). */
  scriptTimeoutMs(file: string): number | undefined {
    const seconds = this.stateOf.get(file)?.timeoutSeconds;
    return seconds === undefined ? undefined : stateTimeoutMs(seconds);
  }

  async dispose(): Promise<void> {
    const scripts = this.scripts;
    this.scripts = undefined;
    if (scripts) await (await scripts.catch(() => undefined))?.remove();
  }
}

/** Whether a path names a YAML workflow, by its extension. */
export function isYamlPath(path: string): boolean {
  return /\.ya?ml$/i.test(path);
}
