import type { Document } from 'yaml';

/**
 * What a YAML text that expands too many aliases is refused with. The
 * `yaml` library stops resolving after a hundred alias expansions (a
 * "billion laughs" would otherwise take all memory) by throwing a bare
 * ReferenceError, which would reach the user as an internal error.
 */
export const ALIAS_BOMB =
  'YAML with too many aliases (*name) to expand: refusing it (an alias bomb would take all memory)';

/**
 * The data of a parsed YAML document. `refuse` is called with ALIAS_BOMB
 * when the document expands too many aliases, so the caller can throw its
 * own one-line error naming its file; other errors are rethrown.
 */
export function yamlData(doc: Document, refuse: (message: string) => never): unknown {
  try {
    return doc.toJS();
  } catch (err) {
    if (err instanceof ReferenceError && /alias/i.test(err.message)) return refuse(ALIAS_BOMB);
    throw err;
  }
}
