import { RaymondError } from '../errors.js';
import { checkStateName } from '../language/parse-output.js';
import { extensionOf } from './extensions.js';

/** Names (without extension) of the state a workflow starts at. */
export const ENTRY_NAMES: readonly string[] = ['1_START', 'START'];

/**
 * Resolves a target as written in a tag to one of `files`: an explicit
 * extension must exist as written and run on the platform (`exts`); a bare
 * NAME takes the one extension that exists. `where` names the scope in
 * messages, `source` is the file the target was written in.
 */
export function resolveTarget(
  files: ReadonlySet<string>,
  exts: readonly string[],
  target: string,
  source: string,
  where: string,
): string {
  checkStateName(target, 'target', source);
  if (extensionOf(target) !== undefined) {
    if (!files.has(target)) {
      throw new RaymondError(
        'ERR_STATE_NOT_FOUND',
        `target "${target}" does not exist in ${where}`,
        { file: source },
      );
    }
    if (!exts.includes(extensionOf(target)!)) {
      throw new RaymondError(
        'ERR_STATE_UNSUPPORTED',
        `target "${target}" cannot run on this platform (supported: ${exts.join(', ')})`,
        { file: source },
      );
    }
    return target;
  }
  const found = exts.map((ext) => target + ext).filter((f) => files.has(f));
  if (found.length === 0) {
    throw new RaymondError(
      'ERR_STATE_NOT_FOUND',
      `target "${target}" matches no state in ${where} (looked for ${exts.map((e) => target + e).join(', ')})`,
      { file: source },
    );
  }
  if (found.length > 1) {
    throw new RaymondError(
      'ERR_STATE_AMBIGUOUS',
      `target "${target}" is ambiguous: ${found.join(' and ')} both exist; name the file with its extension or remove one`,
      { file: source },
    );
  }
  return found[0]!;
}

/** The single `1_START` or `START` state of `files`; none or several is an error naming `where`. */
export function findEntry(
  files: ReadonlySet<string>,
  exts: readonly string[],
  where: string,
): string {
  const found = ENTRY_NAMES.flatMap((stem) => exts.map((ext) => stem + ext)).filter((f) =>
    files.has(f),
  );
  if (found.length === 0) {
    throw new RaymondError(
      'ERR_ENTRY_NOT_FOUND',
      `no entry state: expected 1_START or START with one of ${exts.join(', ')}`,
      { file: where },
    );
  }
  if (found.length > 1) {
    throw new RaymondError(
      'ERR_ENTRY_AMBIGUOUS',
      `several entry states (${found.join(', ')}); keep exactly one`,
      { file: where },
    );
  }
  return found[0]!;
}

/**
 * The state a run starts at when the user names it (`x.yaml/STATE`,
 * `x.zip/STATE`): resolved like a target, but a miss is an entry error,
 * which refuses the run before anything is written.
 */
export function resolveEntry(
  files: ReadonlySet<string>,
  exts: readonly string[],
  entry: string,
  where: string,
): string {
  try {
    return resolveTarget(files, exts, entry, where, where);
  } catch (err) {
    if (!(err instanceof RaymondError)) throw err;
    const code = err.code === 'ERR_STATE_AMBIGUOUS' ? 'ERR_ENTRY_AMBIGUOUS' : 'ERR_ENTRY_NOT_FOUND';
    throw new RaymondError(code, err.message.replace(/^target /, 'start state '), { file: where });
  }
}

/** The state a scope starts at: the one named, else its `1_START` or `START` (none when not required: `''`). */
export function entryOf(
  files: ReadonlySet<string>,
  exts: readonly string[],
  entry: string | undefined,
  where: string,
  requireEntry = true,
): string {
  if (entry !== undefined) return resolveEntry(files, exts, entry, where);
  return requireEntry ? findEntry(files, exts, where) : '';
}
