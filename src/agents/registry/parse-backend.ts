import { RaymondError } from '../../errors.js';
import type { BackendSpec } from '../../executors/executor.js';
import { BACKEND_NAMES, backendNamed, defaultBackend } from './registry.js';

/**
 * Reads a manifest's `backend:` (`pi`, or `{ name: pi, options: {...} }`).
 * Absent is Claude Code; an unknown name, option or value is one error
 * naming the file; the options are checked by their backend.
 */
export function parseBackend(value: unknown, file: string): BackendSpec | undefined {
  if (value === undefined || value === null) return undefined;
  const bad = (message: string): never => {
    throw new RaymondError('ERR_SCOPE', `backend: ${message}`, { file });
  };
  const table = typeof value === 'string' ? { name: value } : value;
  if (typeof table !== 'object' || Array.isArray(table))
    return bad(`expected a name (${BACKEND_NAMES.join(', ')}) or { name, options }`);
  const { name, options, ...rest } = table as Record<string, unknown>;
  if (Object.keys(rest).length > 0)
    bad(`unknown key "${Object.keys(rest)[0]}" (known: name, options)`);
  const backend = typeof name === 'string' ? backendNamed(name) : undefined;
  if (!backend)
    return bad(`unknown backend ${JSON.stringify(name)}; known: ${BACKEND_NAMES.join(', ')}`);
  if (
    options !== undefined &&
    (typeof options !== 'object' || options === null || Array.isArray(options))
  )
    bad('options must be a mapping');
  const parsed = backend.parseOptions(options as Record<string, unknown> | undefined, bad);
  // The default backend's spec is its name alone, as a workflow that names none would have it.
  return backend === defaultBackend()
    ? { name: backend.name }
    : { name: backend.name, options: parsed };
}
