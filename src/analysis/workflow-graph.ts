import { lstat, readdir, realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { RaymondError, type ErrorCode } from '../errors.js';
import { isInside } from '../scope/contained-file.js';
import { HOST_PLATFORM, extensionOf, stateExtensions } from '../scope/extensions.js';
import { ENTRY_NAMES, openScope, type OpenOptions, type Scope } from '../scope/scope.js';
import { ScopeSet } from '../scope/scope-set.js';
import { statesFolder } from '../scope/skill-package.js';
import { readNode, stem, type WorkflowNode, type WorkflowRef } from './workflow-node.js';

/** A workflow as a graph of states, for lint and diagrams. */
export interface WorkflowGraph {
  /** The scope's short name. */
  name: string;
  /** The path as the user gave it. */
  path: string;
  /** The entry state; several when ambiguous, none when missing (see `entryProblem`). */
  entries: string[];
  entryProblem?: { code: ErrorCode; message: string };
  nodes: WorkflowNode[];
  /** Where the user finds a state file, relative to the path they gave. */
  display(file: string): string;
}

/**
 * Reads every state of the workflow at `path` and the transitions between
 * them, without running anything. A missing or ambiguous entry is recorded
 * rather than thrown, so the rest can still be checked. `opts.platform`
 * reads the scripts as that platform would (`--win`).
 */
export async function loadWorkflowGraph(
  path: string,
  opts: OpenOptions = {},
): Promise<WorkflowGraph> {
  const { scope, entries, entryProblem, base } = await openForAnalysis(path, opts);
  try {
    return await graphOf(scope, path, entries, base, entryProblem, opts);
  } finally {
    await scope.dispose();
  }
}

/**
 * The graph of a workflow a run already opened (and will dispose of): a
 * run that checks for asks or draws its diagram reads the scope it runs,
 * rather than opening (for a zip: reading, hashing, extracting) it again.
 */
export function scopeGraph(scope: Scope, path: string): Promise<WorkflowGraph> {
  return graphOf(
    scope,
    path,
    [scope.ref.entry],
    scope.ref.kind === 'file' ? dirname(path) : path,
    undefined,
    {},
  );
}

async function graphOf(
  scope: Scope,
  path: string,
  entries: string[],
  base: string,
  entryProblem: WorkflowGraph['entryProblem'],
  opts: OpenOptions,
): Promise<WorkflowGraph> {
  const others = new ScopeSet(scope, opts.platform);
  try {
    const nodes: WorkflowNode[] = [];
    for (const file of scope.stateFiles()) {
      const node = await readNode(scope, file, entries.includes(file));
      node.fieldWarnings = scope.stateWarnings?.(file) ?? [];
      nodes.push(node);
    }
    for (const node of nodes)
      for (const t of node.transitions)
        if (t.workflow) await checkWorkflow(others, t.workflow, node.file);
    if (scope.ref.kind === 'dir') await markLinksOutside(nodes, scope.ref.path);
    const display = (file: string) =>
      scope.ref.kind === 'zip' || scope.ref.kind === 'yaml' ? `${path}:${file}` : join(base, file);
    return {
      name: scope.name,
      path,
      entries,
      ...(entryProblem ? { entryProblem } : {}),
      nodes,
      display,
    };
  } finally {
    await others.dispose();
  }
}

async function openForAnalysis(given: string, opts: OpenOptions) {
  // A skill package is checked as it runs: its states/ (the paths shown are there too).
  const path = await statesFolder(given);
  try {
    const scope = await openScope(path, opts);
    return {
      scope,
      entries: [scope.ref.entry],
      entryProblem: undefined,
      base: scope.ref.kind === 'file' ? dirname(path) : path,
    };
  } catch (err) {
    if (
      !(err instanceof RaymondError) ||
      (err.code !== 'ERR_ENTRY_NOT_FOUND' && err.code !== 'ERR_ENTRY_AMBIGUOUS')
    )
      throw err;
    // A folder with states but no single entry is still worth checking: open it through one of its
    // states. An archive cannot be opened that way, and stays refused like a run would refuse it.
    const listing = await readdir(path, { withFileTypes: true }).catch(() => []);
    const exts = stateExtensions(opts.platform ?? HOST_PLATFORM);
    const names = listing
      .filter((e) => !e.isDirectory() && exts.includes(extensionOf(e.name) ?? ''))
      .map((e) => e.name)
      .sort();
    if (names.length === 0) throw err;
    const scope = await openScope(join(path, names[0]!), opts);
    const entries = scope.stateFiles().filter((f) => ENTRY_NAMES.includes(stem(f)));
    return { scope, entries, entryProblem: { code: err.code, message: err.message }, base: path };
  }
}

/** Marks the state files that are symbolic links leaving their folder: a run with --queue refuses them, as workers get only the folder. */
async function markLinksOutside(nodes: WorkflowNode[], dir: string): Promise<void> {
  const top = await realpath(dir);
  for (const node of nodes) {
    const path = join(dir, node.file);
    if (!(await lstat(path).catch(() => undefined))?.isSymbolicLink()) continue;
    const real = await realpath(path).catch(() => undefined);
    if (real !== undefined && !isInside(top, real)) node.linkOutside = real;
  }
}

/** Opens a cross-workflow tag's workflow as a run would, noting why it cannot be run. */
async function checkWorkflow(scopes: ScopeSet, ref: WorkflowRef, file: string): Promise<void> {
  if (ref.dynamic) return;
  try {
    await scopes.open(ref.written, null, file);
  } catch (err) {
    if (!(err instanceof RaymondError)) throw err;
    ref.problem = err.message;
  }
}
