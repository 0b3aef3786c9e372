import { basename, dirname, resolve } from 'node:path';

/** Where agents' task folders go unless `task_folder_pattern` says otherwise, relative to the project root. */
export const DEFAULT_TASK_FOLDER_PATTERN = '.raymond/tasks/{workflow_id}/{agent_id}';

const PLACEHOLDERS = ['{workflow_id}', '{agent_id}'];

/**
 * What is wrong with a `task_folder_pattern`, or undefined when it is fine.
 * Both placeholders are required, so that no two runs and no two agents
 * share a folder by accident (a worker shares one only with
 * `task="inherit"`); and the pattern stays inside the project: relative,
 * without `..`.
 */
export function taskFolderPatternProblem(pattern: string): string | undefined {
  if (pattern.trim() === '') return 'must not be empty';
  const stray = pattern.replace(/\{(workflow_id|agent_id)\}/g, '').match(/\{[^}]*\}?|\}/);
  if (stray)
    return `has ${JSON.stringify(stray[0])}; the only placeholders are {workflow_id} and {agent_id}`;
  for (const p of PLACEHOLDERS)
    if (!pattern.includes(p))
      return `must contain ${p}, so that every run and every agent gets a folder of its own`;
  if (pattern.startsWith('/') || pattern.startsWith('\\') || /^[A-Za-z]:/.test(pattern))
    return 'must be relative to the project root (the folder that holds .raymond)';
  if (pattern.split(/[/\\]/).includes('..'))
    return 'must not contain "..": task folders stay inside the project';
  return undefined;
}

/**
 * The absolute path of an agent's `number`-th own task folder: the pattern
 * filled in, under `root`. The first is the pattern itself; each
 * `task="new"` appends `.2`, `.3`, ... to the last part. Neither ids nor
 * workflow ids hold a `.`, so these never meet another agent's folder.
 */
export function taskFolderPath(
  root: string,
  pattern: string,
  workflowId: string,
  agentId: string,
  number: number,
): string {
  const filled = pattern
    .replaceAll('{workflow_id}', workflowId)
    .replaceAll('{agent_id}', agentId)
    .replace(/[/\\]+$/, '');
  return resolve(root, number > 1 ? `${filled}.${number}` : filled);
}

/**
 * `taskFolderPath` for one run, made once: an agent's first folder is the
 * run's resolved pattern joined around the agent's id, one flat string,
 * rather than a path resolution per agent, whose result is a rope of many
 * pieces held as long as the agent (and 7 MB of garbage at a fork of
 * 10,000). An id that path resolution could change (`/`, `\\`, `.`, `..`), and
 * every later folder, take the full path.
 */
export function taskFolderPaths(
  root: string,
  pattern: string,
  workflowId: string,
): (agentId: string, number: number) => string {
  // NUL is in no id and no pattern, and resolve leaves it alone.
  const mark = '\0';
  const parts = taskFolderPath(root, pattern, workflowId, mark, 1).split(mark);
  return (agentId, number) =>
    number === 1 && !/[/\\]|^\.\.?$/.test(agentId)
      ? parts.join(agentId)
      : taskFolderPath(root, pattern, workflowId, agentId, number);
}

/**
 * The project root a state folder belongs to, where task folder patterns
 * start: for a state folder inside a `.raymond` folder (`.raymond/state`,
 * and `raymond serve`'s `.raymond/serve-state`) the folder holding that
 * `.raymond`; for any other (`--state-dir st`, `--state-dir runs/state`) the
 * folder holding the state folder, so a run's folders never land above the
 * directory the user chose.
 */
export function projectRootOf(stateFile: string): string {
  const stateDir = dirname(stateFile);
  const parent = dirname(stateDir);
  return basename(parent) === '.raymond' ? dirname(parent) : parent;
}
