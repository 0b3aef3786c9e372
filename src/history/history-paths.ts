import { createHash } from 'node:crypto';
import { basename, join } from 'node:path';

/** The run history of a project: `<project>/.raymond/history`. */
export function historyRoot(projectRoot: string): string {
  return join(projectRoot, '.raymond', 'history');
}

/** The short name of a workflow at `path`: its folder's or file's name without extension. */
export function workflowShortName(path: string): string {
  return basename(path).replace(/\.(md|sh|ps1|bat|ya?ml|zip)$/i, '') || 'workflow';
}

/**
 * A workflow's folder in the history: its short name and a hash of where it
 * is, so two workflows of the same name in one project stay apart and the
 * name stays readable in `ls`.
 */
export function historyKey(ref: { kind: string; path: string }): string {
  const hash = createHash('sha256').update(`${ref.kind}:${ref.path}`).digest('hex').slice(0, 8);
  const name = workflowShortName(ref.path)
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .slice(0, 40);
  return `${name}-${hash}`;
}

/** One fingerprint for a workflow's files (their own fingerprints, by name). */
export function workflowFingerprint(fingerprints: Record<string, string> | undefined): string {
  const entries = Object.entries(fingerprints ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return createHash('sha256').update(JSON.stringify(entries)).digest('hex').slice(0, 12);
}

/** The files of one workflow's history. */
export function historyFiles(root: string, key: string) {
  const dir = join(root, key);
  return {
    dir,
    steps: join(dir, 'steps.jsonl'),
    runs: join(dir, 'runs.jsonl'),
    index: join(dir, 'index.json'),
  };
}
