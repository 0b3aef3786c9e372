import { existsSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { backendOf } from '../agents/registry/registry.js';
import type { Problem } from './lint-checks-table.js';
import type { WorkflowNode } from './workflow-node.js';

type Report = (check: Problem['check'], message: string) => void;

/**
 * A state's grant as a run would take it: keys its backend cannot honour
 * (an error, as the run refuses to start), tool names its backend does not
 * know (a warning: a newer CLI may have them), files that are missing or
 * malformed, and `add_dirs` a run would refuse.
 */
export function grantChecks(node: WorkflowNode, report: Report): void {
  const grant = node.grant;
  if (!grant) return;
  const backend = backendOf(node.backend);
  const problem = backend.grantProblem(grant);
  if (problem !== undefined) report('unsupported-grant', problem);
  if (backend.toolProblem) {
    const lists: Array<[string, string[] | undefined]> = [
      ['tools', grant.tools],
      ['allowed_tools', grant.allowedTools],
      ['disallowed_tools', grant.disallowedTools],
    ];
    for (const [key, list] of lists) {
      for (const tool of list ?? []) {
        const unknown = backend.toolProblem(tool);
        if (unknown !== undefined) report('unknown-tool', `${key}: ${unknown}`);
      }
    }
  }
  for (const p of node.grantFileProblems ?? []) report('bad-grant-file', p);
  for (const dir of grant.addDirs ?? []) {
    // A relative directory is the agent's, known only when it runs; an absolute one must be there now, as a run would check.
    if (dir.startsWith('~'))
      report(
        'bad-add-dir',
        `add_dirs: "${dir}" starts with ~, which is not expanded (as with cd="..."): write the path out`,
      );
    else if (isAbsolute(dir) && !(existsSync(dir) && statSync(dir).isDirectory()))
      report('bad-add-dir', `add_dirs: "${dir}" is not a directory`);
  }
}
