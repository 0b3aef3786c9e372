import { RaymondError } from '../errors.js';
import type { WorktreeRequest } from '../../machines/types.js';

// Where a `<fork>` or `<reset>` runs (its task folder, its worktree), read from its attributes: kept
// apart from decide.ts, which turns a reply's tags into one decision, and shared with lint.

/**
 * The `task` attribute of a `<reset>` (`new`: a fresh task folder) or a
 * `<fork>` (`new`, the default: the worker's own folder; `inherit`: its
 * parent's), checked against the values that tag takes.
 * @throws RaymondError ERR_TAG_PARSE for any other value.
 */
export function taskOf(
  a: Record<string, string>,
  tag: 'reset' | 'fork' | 'reset-workflow' | 'fork-workflow',
  source: string,
): 'new' | 'inherit' | undefined {
  const value = a.task;
  if (value === undefined) return undefined;
  const allowed = tag === 'reset' || tag === 'reset-workflow' ? ['new'] : ['new', 'inherit'];
  if (!allowed.includes(value)) {
    throw new RaymondError(
      'ERR_TAG_PARSE',
      `<${tag}> task="${value}": expected ${allowed.map((v) => `task="${v}"`).join(' or ')}`,
      { file: source },
    );
  }
  return value as 'new' | 'inherit';
}

/**
 * The worktree a `<fork>`'s or `<reset>`'s attributes ask for, if any.
 * @throws RaymondError ERR_TAG_PARSE for `base`/`sparse` without `worktree`, `cd` with it, or a bad sparse folder.
 */
export function worktreeOf(
  a: Record<string, string>,
  tag: string,
  source: string,
): WorktreeRequest | undefined {
  if (a.worktree === undefined) {
    for (const key of ['base', 'sparse']) {
      if (a[key] !== undefined)
        throw new RaymondError(
          'ERR_TAG_PARSE',
          `<${tag}> has ${key}="${a[key]}" but no worktree="NAME"`,
          { file: source },
        );
    }
    return undefined;
  }
  if (a.worktree.trim() === '')
    throw new RaymondError('ERR_TAG_PARSE', `<${tag}> worktree="" needs a name`, { file: source });
  if (a.cd !== undefined)
    throw new RaymondError(
      'ERR_TAG_PARSE',
      `<${tag}> cannot have both cd and worktree: the worktree is the directory`,
      { file: source },
    );
  const request: WorktreeRequest = { name: a.worktree, base: a.base };
  if (a.sparse !== undefined) request.sparse = sparsePaths(a.sparse, tag, source);
  return request;
}

/**
 * The folders of `sparse="a/b c"`, as git's cone mode wants them: relative
 * to the repository's top, inside it, no option-like or glob names.
 */
function sparsePaths(value: string, tag: string, source: string): string[] {
  const paths = value
    .split(/\s+/)
    .filter((p) => p !== '')
    .map((p) => p.replace(/\/+$/, ''));
  const bad = (why: string) =>
    new RaymondError('ERR_TAG_PARSE', `<${tag}> sparse="${value}": ${why}`, { file: source });
  if (paths.length === 0) throw bad('needs at least one folder of the repository');
  for (const p of paths) {
    if (p.startsWith('/') || /^[A-Za-z]:/.test(p))
      throw bad(`"${p}" must be relative to the repository's top`);
    if (p.split('/').some((part) => part === '..' || part === '.' || part === ''))
      throw bad(`"${p}" must be a plain folder path inside the repository (no "..", "." or "//")`);
    if (p.startsWith('-') || /[*?[\]\\!]/.test(p))
      throw bad(`"${p}" is not a folder name git's cone mode takes`);
  }
  return [...new Set(paths)];
}
