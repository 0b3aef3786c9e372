import type { AgentRecord, StoredAgent } from '../../machines/types.js';
import { RaymondError, errorMessage } from '../errors.js';
import { taskFolderPaths } from '../task-folder-pattern.js';
import type { Scope } from '../scope/scope.js';
import { DISK_FULL_HINT, isDiskFull, makeFolders } from '../make-folders.js';

/** The task folders of one run: where each goes, and making them when a step first needs one. */
export interface TaskFolders {
  /** Absolute path of an agent's `number`-th own task folder (1 is its first). */
  path(agentId: string, number: number): string;
  /** The agent's folder: the one it was given, or its first (agents of older state files have none recorded). */
  of(agent: Pick<AgentRecord, 'id' | 'task_folder'>): string;
  /** Makes the folder (and its parents) unless this run already made it. */
  ensure(path: string, where: string): Promise<void>;
  /** Whether the workflow's agents use task folders (see TASK_FOLDER_WORDS); read once per scope. */
  usedBy(scope: Pick<Scope, 'mentions'>): Promise<boolean>;
}

/**
 * What in a workflow's files makes its agents' task folders be made before
 * their steps: `{{task_folder}}` in a prompt, `$RAYMOND_TASK_FOLDER` in a
 * script (or a helper in its folder), a `task="..."` attribute on a tag, an
 * ask's `display_files` or `upload_*` (read from and written to the task
 * folder). A workflow naming none never gets one made, though its scripts
 * still see the variable: at 100,000 workers, 100,000 empty folders fewer.
 */
export const TASK_FOLDER_WORDS = [
  'task_folder',
  'TASK_FOLDER',
  'task=',
  'display_files',
  'upload_',
] as const;

/** Task folders laid out by `pattern` under `root` for the run `workflowId`. */
export function createTaskFolders(root: string, pattern: string, workflowId: string): TaskFolders {
  const made = new Set<string>();
  const used = new WeakMap<object, Promise<boolean>>();
  const path = taskFolderPaths(root, pattern, workflowId);
  return {
    path,
    of: (agent) => agent.task_folder ?? path(agent.id, 1),
    async ensure(folder, where) {
      if (made.has(folder)) return;
      await makeFolders(folder).catch((err: unknown) => {
        throw new RaymondError(
          'ERR_TASK_FOLDER',
          `cannot make the task folder ${folder}: ${errorMessage(err)}${isDiskFull(err) ? DISK_FULL_HINT : ''}`,
          { file: where },
        );
      });
      made.add(folder);
    },
    usedBy(scope) {
      let uses = used.get(scope);
      if (!uses) {
        uses = scope.mentions(TASK_FOLDER_WORDS);
        used.set(scope, uses);
      }
      return uses;
    },
  };
}

/** Gives agents of a state file written before task folders their default one, so the state file records it. */
export function withTaskFolders(agents: StoredAgent[], folders: TaskFolders): StoredAgent[] {
  return agents.map((a) =>
    a.task_folder === undefined ? { ...a, task_folder: folders.of(a) } : a,
  );
}
