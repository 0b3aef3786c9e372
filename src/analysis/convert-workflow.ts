import { parseDocument, stringify } from 'yaml';
import { RaymondError } from '../errors.js';
import { frontmatterData, parseStateSource } from '../language/frontmatter.js';
import { extensionOf } from '../scope/extensions.js';
import { yamlData } from '../language/yaml-data.js';
import { MANIFEST_KEYS } from '../scope/yaml-workflow.js';

/** The manifest file a folder or zip workflow may hold beside its states. */
export const MANIFEST_FILE = 'workflow.yaml';

/**
 * The YAML form of a folder or zip workflow, from its files by name: one
 * state per stem (`X.md` becomes `prompt` plus its frontmatter keys; `X.sh`,
 * `X.ps1`, `X.bat` become `sh`, `ps1`, `bat` of one state `X`), and the
 * manifest keys of `workflow.yaml` at the top. What would not come back the
 * same when run (a name that is both a prompt and a script, text that is not
 * UTF-8, a frontmatter that does not parse) is refused with ERR_CONVERT
 * naming `display(file)`.
 */
export function convertToYaml(
  files: ReadonlyMap<string, Uint8Array>,
  display: (file: string) => string,
): string {
  const refuse = (file: string, message: string): never => {
    throw new RaymondError('ERR_CONVERT', message, { file: display(file) });
  };
  const states = new Map<string, Record<string, unknown>>();
  const kinds = new Map<string, string>();
  for (const file of [...files.keys()].sort()) {
    const ext = extensionOf(file);
    if (ext === undefined) continue;
    const name = file.slice(0, -ext.length);
    const text = utf8(files.get(file)!, () =>
      refuse(file, 'is not valid UTF-8 text; a YAML workflow holds text only'),
    );
    const other = kinds.get(name);
    if (other !== undefined && (other === '.md' || ext === '.md'))
      refuse(
        file,
        `state ${name} is both ${name}${other} and ${file}; a YAML state is either a prompt or a script: rename one`,
      );
    kinds.set(name, ext);
    const state = states.get(name) ?? {};
    states.set(name, state);
    if (ext !== '.md') {
      state[ext.slice(1)] = text;
      continue;
    }
    let body: string;
    try {
      body = parseStateSource(text, file).body;
    } catch (err) {
      if (err instanceof RaymondError) refuse(file, `cannot be converted: ${err.message}`);
      throw err;
    }
    Object.assign(state, { prompt: body, ...frontmatterData(text) });
  }
  if (states.size === 0) refuse('', 'holds no state files (.md, .sh, .ps1, .bat) to convert');
  const manifest = files.has(MANIFEST_FILE)
    ? manifestOf(files.get(MANIFEST_FILE)!, (message) =>
        refuse(MANIFEST_FILE, message ?? 'is not a YAML mapping; fix it or remove it'),
      )
    : {};
  // Scripts in a fixed key order (sh, ps1, bat) so the output does not depend on the listing.
  const ordered = Object.fromEntries([...states].map(([name, s]) => [name, orderKeys(s)]));
  return stringify({ ...manifest, states: ordered }, { blockQuote: 'literal', lineWidth: 0 });
}

function orderKeys(state: Record<string, unknown>): Record<string, unknown> {
  const first = ['prompt', 'sh', 'ps1', 'bat'].filter((k) => k in state);
  return Object.fromEntries(
    [...first, ...Object.keys(state).filter((k) => !first.includes(k))].map((k) => [k, state[k]]),
  );
}

function utf8(bytes: Uint8Array, refuse: () => never): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return refuse();
  }
}

function manifestOf(
  bytes: Uint8Array,
  refuse: (message?: string) => never,
): Record<string, unknown> {
  const doc = parseDocument(utf8(bytes, refuse));
  const data: unknown = doc.errors.length > 0 ? undefined : yamlData(doc, refuse);
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return refuse();
  return Object.fromEntries(
    MANIFEST_KEYS.filter((k) => k in data).map((k) => [k, (data as Record<string, unknown>)[k]]),
  );
}
