import { parseDocument } from 'yaml';
import { backendOf } from '../agents/registry/registry.js';
import { parseBackend } from '../agents/registry/parse-backend.js';
import { yamlData } from '../language/yaml-data.js';
import { readRegularFile } from './regular-file.js';

/** `input.mode` of a manifest: whether a run must, may or must not be given an input. */
export type InputMode = 'required' | 'optional' | 'none';

/** One workflow the server offers, with its manifest's metadata (defaults where it has none). */
export interface WorkflowEntry {
  id: string;
  name: string;
  description: string;
  input: { mode: InputMode; label: string; description: string };
  /** USD; 0: none given. */
  default_budget: number;
  requires_human_input: boolean;
  working_directory?: string;
  environment?: Record<string, string>;
  /** The name of the backend its markdown states run on (the registry's default when the manifest names none). */
  backend: string;
  /** What a run starts: a folder (a skill package's `states/`), a `.zip` or a `.yaml` file. */
  path: string;
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** A manifest's keys as an entry; throws with a message for a value `ray` would refuse. */
export function manifestEntry(
  manifest: Record<string, unknown>,
  fallbackId: string,
  path: string,
): WorkflowEntry {
  const input = (
    typeof manifest.input === 'object' && manifest.input !== null ? manifest.input : {}
  ) as Record<string, unknown>;
  const mode = input.mode === undefined ? 'optional' : input.mode;
  if (mode !== 'required' && mode !== 'optional' && mode !== 'none')
    throw new Error(
      `input.mode must be one of required, optional, none; got ${JSON.stringify(mode)}`,
    );
  const human =
    manifest.requires_human_input === undefined
      ? 'auto'
      : typeof manifest.requires_human_input === 'string'
        ? manifest.requires_human_input
        : JSON.stringify(manifest.requires_human_input);
  if (!['auto', 'true', 'false'].includes(human))
    throw new Error(
      `requires_human_input must be one of auto, true, false; got ${JSON.stringify(manifest.requires_human_input)}`,
    );
  const budget = manifest.default_budget === undefined ? 0 : manifest.default_budget;
  if (typeof budget !== 'number' || !Number.isFinite(budget) || budget < 0)
    throw new Error(
      `default_budget must be a number of USD, 0 or more; got ${JSON.stringify(budget)}`,
    );
  const id = manifest.id === undefined ? fallbackId : manifest.id;
  if (typeof id !== 'string' || id === '' || /[/\\]/.test(id))
    throw new Error(`id must be a name without / or \\; got ${JSON.stringify(id)}`);
  const entry: WorkflowEntry = {
    id,
    name: text(manifest.name) || id,
    description: text(manifest.description),
    input: { mode, label: text(input.label), description: text(input.description) },
    default_budget: budget,
    // `auto` is false at discovery, as in `ray`: no states are scanned for asks.
    requires_human_input: human === 'true',
    backend: backendOf(parseBackend(manifest.backend, path)).name,
    path,
  };
  if (typeof manifest.working_directory === 'string' && manifest.working_directory !== '')
    entry.working_directory = manifest.working_directory;
  if (
    typeof manifest.environment === 'object' &&
    manifest.environment !== null &&
    !Array.isArray(manifest.environment)
  ) {
    entry.environment = Object.fromEntries(
      Object.entries(manifest.environment as Record<string, unknown>).map(([k, v]) => [
        k,
        String(v),
      ]),
    );
  }
  return entry;
}

/** A YAML text that must be a mapping (a manifest, a YAML workflow); throws with its first problem. */
export function parseMapping(source: string): Record<string, unknown> {
  const doc = parseDocument(source);
  if (doc.errors.length > 0) throw doc.errors[0]!;
  const value = yamlData(doc, (message) => {
    throw new Error(message);
  });
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error('not a YAML mapping');
  return value as Record<string, unknown>;
}

/** The most a manifest or YAML workflow read at discovery may be. */
const MAX_YAML_BYTES = 16 * 2 ** 20;

/** A manifest or YAML workflow's text: a regular file of at most 16 MiB. */
export async function readYaml(path: string): Promise<string> {
  return (
    await readRegularFile(
      path,
      MAX_YAML_BYTES,
      'larger than 16 MiB, the most a workflow file may be',
    )
  ).toString('utf8');
}
