import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parseDocument } from 'yaml';
import { yamlData } from '../language/yaml-data.js';
import { RaymondError } from '../errors.js';
import { readGrant, type Grant } from '../language/grant.js';

/** `backend.options` of a pi workflow, as `ray` has them; each maps to one `pi` flag. */
export interface PiOptions {
  provider?: string;
  thinking?: string;
  tools?: string[];
  no_tools?: boolean;
  no_builtin_tools?: boolean;
  extensions?: string[];
  skills?: string[];
  no_extensions?: boolean;
  no_skills?: boolean;
  session_dir?: string;
}

/** The agent CLI a workflow's markdown states run on: Claude Code unless its manifest says `backend: pi`. */
export type BackendSpec = { name: 'claude' } | { name: 'pi'; options: PiOptions };

/** Every backend name a manifest may give. */
export const BACKEND_NAMES = ['claude', 'pi'] as const;

const text = (v: unknown) => typeof v === 'string' && v.trim() !== '';
const flag = (v: unknown) => typeof v === 'boolean';
const list = (v: unknown) => Array.isArray(v) && v.every(text);
const PI_OPTIONS: Record<keyof PiOptions, { check: (v: unknown) => boolean; expected: string }> = {
  provider: { check: text, expected: 'a provider name' },
  thinking: { check: text, expected: 'a thinking level' },
  tools: { check: list, expected: 'a list of tool names' },
  no_tools: { check: flag, expected: 'true or false' },
  no_builtin_tools: { check: flag, expected: 'true or false' },
  extensions: { check: list, expected: 'a list of extension sources' },
  skills: { check: list, expected: 'a list of skill folders' },
  no_extensions: { check: flag, expected: 'true or false' },
  no_skills: { check: flag, expected: 'true or false' },
  session_dir: { check: text, expected: 'a folder' },
};

/**
 * Reads a manifest's `backend:` (`pi`, or `{ name: pi, options: {...} }`).
 * Absent is Claude Code; an unknown name, option or value is one error
 * naming the file.
 */
export function parseBackend(value: unknown, file: string): BackendSpec | undefined {
  if (value === undefined || value === null) return undefined;
  const bad = (message: string): never => {
    throw new RaymondError('ERR_SCOPE', `backend: ${message}`, { file });
  };
  const table = typeof value === 'string' ? { name: value } : value;
  if (typeof table !== 'object' || Array.isArray(table))
    return bad('expected a name (claude, pi) or { name, options }');
  const { name, options, ...rest } = table as Record<string, unknown>;
  if (Object.keys(rest).length > 0)
    bad(`unknown key "${Object.keys(rest)[0]}" (known: name, options)`);
  if (typeof name !== 'string' || !(BACKEND_NAMES as readonly string[]).includes(name))
    return bad(`unknown backend ${JSON.stringify(name)}; known: ${BACKEND_NAMES.join(', ')}`);
  if (name === 'claude') {
    if (options !== undefined) bad('the claude backend takes no options');
    return { name: 'claude' };
  }
  if (
    options !== undefined &&
    (typeof options !== 'object' || options === null || Array.isArray(options))
  )
    bad('options must be a mapping');
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries((options ?? {}) as Record<string, unknown>)) {
    const spec = Object.hasOwn(PI_OPTIONS, key) ? PI_OPTIONS[key as keyof PiOptions] : undefined;
    if (!spec) bad(`unknown pi option "${key}" (known: ${Object.keys(PI_OPTIONS).join(', ')})`);
    if (!spec!.check(v)) bad(`options.${key} = ${JSON.stringify(v)}: expected ${spec!.expected}`);
    out[key] = v;
  }
  const exclusive = ['tools', 'no_tools', 'no_builtin_tools'].filter(
    (k) => out[k] !== undefined && out[k] !== false,
  );
  if (exclusive.length > 1) bad(`options ${exclusive.join(' and ')} exclude each other`);
  return { name: 'pi', options: out };
}

/**
 * The backend of a folder workflow: `workflow.yaml` in the folder, or
 * beside it for a skill package's `states/` folder.
 */
export function folderBackend(dir: string): BackendSpec | undefined {
  const candidates = [
    join(dir, 'workflow.yaml'),
    ...(basename(dir) === 'states' ? [join(dirname(dir), 'workflow.yaml')] : []),
  ];
  const manifest = candidates.find((f) => existsSync(f));
  if (!manifest) return undefined;
  return manifestBackend(readFileSync(manifest, 'utf8'), manifest);
}

/** The backend a `workflow.yaml` text declares. */
export function manifestBackend(text: string, file: string): BackendSpec | undefined {
  const data = manifestData(text, file);
  return data ? parseBackend(data.backend, file) : undefined;
}

/** The grant keys at the top of a folder workflow's `workflow.yaml`: every markdown state's defaults. */
export function folderGrant(dir: string): Grant | undefined {
  const candidates = [
    join(dir, 'workflow.yaml'),
    ...(basename(dir) === 'states' ? [join(dirname(dir), 'workflow.yaml')] : []),
  ];
  const manifest = candidates.find((f) => existsSync(f));
  return manifest ? manifestGrant(readFileSync(manifest, 'utf8'), manifest) : undefined;
}

/** The grant keys at the top of a `workflow.yaml` text. */
export function manifestGrant(text: string, file: string): Grant | undefined {
  const data = manifestData(text, file);
  return data ? readGrant(data, file, 'ERR_SCOPE') : undefined;
}

function manifestData(text: string, file: string): Record<string, unknown> | undefined {
  const invalid = (message: string): never => {
    throw new RaymondError('ERR_SCOPE', message, { file });
  };
  const doc = parseDocument(text);
  if (doc.errors.length > 0) invalid(`not valid YAML: ${doc.errors[0]!.message.split('\n')[0]}`);
  const data = yamlData(doc, invalid);
  return data && typeof data === 'object' && !Array.isArray(data)
    ? (data as Record<string, unknown>)
    : undefined;
}
