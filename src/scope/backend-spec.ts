import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parseDocument } from 'yaml';
import { yamlData } from '../language/yaml-data.js';
import { RaymondError } from '../errors.js';
import { parseBackend } from '../agents/registry/parse-backend.js';
import type { BackendSpec } from '../executors/executor.js';
import { readGrant, type Grant } from '../language/grant.js';

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
