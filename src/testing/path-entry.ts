import { stateStem } from './test-file.js';

/**
 * One entry of a test's `expect.paths`: the state an agent ran and, when
 * written (`REVIEW -goto->`, as `raymond record` writes it), the kind of the
 * transition that step took. An entry without a kind (the older form)
 * checks the state only.
 */
export interface PathEntry {
  /** The state's stem (`REVIEW`, whether written `REVIEW` or `REVIEW.md`). */
  state: string;
  /** The transition's kind (`goto`, `join`, `call`, `result`...), when the entry names one. */
  kind?: string;
}

const WITH_KIND = /^(.*\S)\s+-([a-z][\w-]*)->$/;

/** Reads an entry: `STATE` or `STATE -KIND->`. */
export function pathEntry(text: string): PathEntry {
  const m = WITH_KIND.exec(text.trim());
  return m ? { state: stateStem(m[1]!), kind: m[2]! } : { state: stateStem(text.trim()) };
}

/** Writes an entry as `raymond record` does: the kind of every step that ended in a transition. */
export function pathEntryText(state: string, kind: string | undefined): string {
  return kind === undefined ? state : `${state} -${kind}->`;
}
