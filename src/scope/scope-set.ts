import { basename, dirname } from 'node:path';
import { RaymondError } from '../errors.js';
import { HOST_PLATFORM, stateExtensions, type ScriptPlatform } from './extensions.js';
import { findEntry } from './resolve-target.js';
import { openScope, type Scope } from './scope.js';
import { locateSpec, packageKind, specBase, type SpecKind } from './workflow-spec.js';

/** A callee a cross-workflow tag opened: its scope's key (null: the run's own), entry state and short name. */
export interface OpenedWorkflow {
  key: string | null;
  entry: string;
  name: string;
}

/** The root a scope is known by: its folder, zip or YAML file (a run started at a state file is its folder). */
function rootOf(scope: Scope): { root: string; kind: SpecKind } {
  if (scope.ref.kind === 'file') return { root: dirname(scope.ref.path), kind: 'dir' };
  return {
    root: scope.ref.path,
    kind: scope.ref.kind === 'dir' ? 'dir' : (packageKind(scope.ref.path) ?? 'dir'),
  };
}

/** A scope's short name for worker ids: the folder's name, or the package's without its extension. */
function nameOf(root: string, kind: SpecKind): string {
  const base = basename(root);
  return kind === 'dir' ? base : base.replace(/\.[^.]*$/, '');
}

/**
 * Every workflow scope a run's agents are in: the run's own, and each one a
 * cross-workflow tag led to, opened once and kept until the run ends. An
 * agent's scope is stored as a key, its root path, so a resume opens the
 * same ones; the run's own scope has no key (agents outside any other
 * scope store nothing).
 */
export class ScopeSet {
  private readonly mainRoot: string;
  private readonly opened = new Map<string, Scope>();
  private readonly opening = new Map<string, Promise<Scope>>();

  /** `platform`: which script states other workflows' targets resolve to (`lint --win`); the host's by default. */
  constructor(
    readonly main: Scope,
    private readonly platform: ScriptPlatform = HOST_PLATFORM,
  ) {
    this.mainRoot = rootOf(main).root;
  }

  /**
   * The scope of an agent (or of a frame's caller) by its key; undefined or null is the run's own.
   * @throws Error when the key was never opened: a bug, as every key comes from `open` or `preload`.
   */
  of(key: string | null | undefined): Scope {
    if (key === undefined || key === null) return this.main;
    const scope = this.opened.get(key);
    if (!scope) throw new Error(`scope ${key} was not opened`);
    return scope;
  }

  /**
   * Opens the workflow a cross-workflow tag names, relative to the caller's
   * scope, and finds its entry: the state the specifier names, else its
   * `1_START` or `START`. Errors name `where` (the calling state).
   */
  async open(
    spec: string,
    callerKey: string | null | undefined,
    where: string,
  ): Promise<OpenedWorkflow> {
    const caller = callerKey
      ? { root: callerKey, kind: packageKind(callerKey) ?? ('dir' as const) }
      : rootOf(this.main);
    const target = await locateSpec(spec, specBase(caller.root, caller.kind), where);
    const key = target.root === this.mainRoot ? null : target.root;
    const scope = key === null ? this.main : await this.load(key);
    const entry =
      target.state !== undefined
        ? scope.resolve(target.state, where)
        : entryOf(scope, stateExtensions(this.platform), spec, where);
    // Another workflow's name is its scope's (a package's states/ folder takes the package's name).
    return { key, entry, name: key === null ? nameOf(target.root, target.kind) : scope.name };
  }

  /** Opens the scopes a resumed run's agents and frames are in, before any step runs. */
  async preload(keys: Iterable<string>): Promise<void> {
    for (const key of new Set(keys)) if (key !== this.mainRoot) await this.load(key);
  }

  private load(key: string): Promise<Scope> {
    let pending = this.opening.get(key);
    if (!pending) {
      pending = openScope(key, { requireEntry: false, platform: this.platform }).then((scope) => {
        this.opened.set(key, scope);
        return scope;
      });
      // A scope that failed to open is tried again by the next tag that names it.
      pending.catch(() => this.opening.delete(key));
      this.opening.set(key, pending);
    }
    return pending;
  }

  /** Removes what the opened scopes extracted; the run's own scope is its owner's to dispose. */
  async dispose(): Promise<void> {
    await Promise.all([...this.opened.values()].map((s) => s.dispose()));
    this.opened.clear();
    this.opening.clear();
  }
}

function entryOf(scope: Scope, exts: readonly string[], spec: string, where: string): string {
  try {
    return findEntry(new Set(scope.stateFiles()), exts, scope.ref.path);
  } catch (err) {
    if (!(err instanceof RaymondError)) throw err;
    throw new RaymondError(err.code, `workflow "${spec}" (${scope.ref.path}): ${err.message}`, {
      file: where,
    });
  }
}
