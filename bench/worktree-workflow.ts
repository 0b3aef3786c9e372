import { join } from 'node:path';
import { writeScripts } from './write-scripts.js';

/** What one worker does: the package it edits, and the paths of its sparse checkout if any. */
export interface WorktreeWorker {
  pkg: string;
  sparse?: string;
}

const sh = (body: string) => `#!/usr/bin/env bash\nset -euo pipefail\n${body}\n`;

/**
 * The workers of one figure: `n` of them, one package each, round-robin over
 * the repository's packages; with `sparse`, each asks for a cone of its package.
 */
export function worktreeWorkers(n: number, packages: string[], sparse: boolean): WorktreeWorker[] {
  return Array.from({ length: n }, (_, k) => {
    const pkg = packages[k % packages.length]!;
    return sparse ? { pkg, sparse: `pkg/${pkg}` } : { pkg };
  });
}

/**
 * Writes the workflow into `dir` (outside the repository, so it dirties no
 * checkout) and returns the worker script's path, which the plain loops run
 * too: both sides make the same edit and the same commit. START forks every
 * worker in one output, each with `worktree="w"`; a worker appends a line to
 * `pkg/$pkg/f000.txt` in its own directory (its worktree) and commits it.
 */
export function writeWorktreeWorkflow(dir: string, workers: WorktreeWorker[]): string {
  const forks = workers.map(
    (w) =>
      `<fork next="DONE.sh" worktree="w" pkg="${w.pkg}"${w.sparse ? ` sparse="${w.sparse}"` : ''}>W.sh</fork>`,
  );
  writeScripts(dir, {
    // A here-document: one printf per fork would cost a process per worker in START.
    'START.sh': sh(`cat <<'FORKS'\n${forks.join('\n')}\nFORKS`),
    'W.sh': sh(
      [
        'echo "edited by ${RAYMOND_AGENT_ID:-plain}" >> "pkg/$pkg/f000.txt"',
        'git commit -qam "bench: edit pkg/$pkg"',
        'echo "<result>done</result>"',
      ].join('\n'),
    ),
    'DONE.sh': sh('echo "<result>ok</result>"'),
  });
  return join(dir, 'W.sh');
}
