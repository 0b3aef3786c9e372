import { readFile, readdir, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { RaymondError } from '../errors.js';
import { ignoreRaymondFolder } from '../raymond-folder.js';
import { DISK_FULL_HINT, isDiskFull, makeFolders } from '../make-folders.js';
import type { WorkflowState } from '../../machines/types.js';
import { applyJournal } from './journal.js';
import { expandState, type WrittenState } from '../../machines/written-agent.js';
import {
  DEFAULT_TASK_FOLDER_PATTERN,
  projectRootOf,
  taskFolderPaths,
} from '../task-folder-pattern.js';
import { stateFileLike, stateFileProblem } from './state-schema.js';

const WORKFLOW_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Checks a run id: letters, digits, `-` and `_`. Every path made from an id
 * goes through here, so an id such as `../x` never names a file outside the
 * state folder.
 */
export function checkWorkflowId(id: string): void {
  if (!WORKFLOW_ID.test(id)) {
    throw new RaymondError(
      'ERR_WORKFLOW_ID',
      `invalid workflow id ${JSON.stringify(id)}: use 1-128 letters, digits, - or _`,
    );
  }
}

/** Where a run's state file lives. */
export function stateFilePath(stateDir: string, workflowId: string): string {
  checkWorkflowId(workflowId);
  return join(stateDir, `${workflowId}.json`);
}

/** The journal beside a state file (`<id>.journal`). */
export function journalFilePath(statePath: string): string {
  return statePath.replace(/\.json$/, '.journal');
}

/** The lock file beside a run's state file. */
export function lockFilePath(stateDir: string, workflowId: string): string {
  checkWorkflowId(workflowId);
  return join(stateDir, `${workflowId}.lock`);
}

/** Makes the state directory (keeping `.raymond/` out of git) and refuses to reuse an existing run's id. */
export async function prepareStateFile(stateDir: string, workflowId: string): Promise<string> {
  await makeFolders(stateDir).catch((err: NodeJS.ErrnoException) => {
    throw new RaymondError(
      'ERR_STATE_FILE',
      `cannot create the state directory: ${err.code ? err.message : String(err)}${isDiskFull(err) ? DISK_FULL_HINT : ''}`,
      { file: stateDir },
    );
  });
  await ignoreRaymondFolder(dirname(stateDir));
  const path = stateFilePath(stateDir, workflowId);
  await refuseExisting(path, workflowId);
  return path;
}

/** Refuses a new run whose state file exists already. */
export async function refuseExisting(path: string, workflowId: string): Promise<void> {
  if (
    await stat(path).then(
      () => true,
      () => false,
    )
  ) {
    throw new RaymondError(
      'ERR_WORKFLOW_ID',
      `a run with id "${workflowId}" already exists; choose another --workflow-id`,
      { file: path },
    );
  }
}

/**
 * Removes the temporary files a writer left beside a run's state file when it
 * died mid-write (`<id>.json.<digits>`, write-file-atomic's names). Call it
 * holding the run's lock: the run's one writer is then this process, which
 * has not written yet, so every such file is a dead writer's. Ids hold no
 * `.`, so no other run's files match.
 */
export async function removeLeftoverTemps(statePath: string): Promise<void> {
  const prefix = `${basename(statePath)}.`;
  const names = await readdir(dirname(statePath)).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix) || !/^\d+$/.test(name.slice(prefix.length))) continue;
    await unlink(join(dirname(statePath), name)).catch(() => {
      // Gone already, or not ours to remove: it costs disk space, not correctness.
    });
  }
}

/** Reads and checks a state file; `id` names the run in the message when there is none. */
export async function readStateFile(path: string, id?: string): Promise<WorkflowState> {
  const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT' && id)
      throw new RaymondError(
        'ERR_STATE_FILE',
        `no run with id "${id}" here (see raymond --list, or give --state-dir)`,
        { file: path },
      );
    throw new RaymondError(
      'ERR_STATE_FILE',
      `cannot read the state file: ${err.code ?? err.message}`,
      { file: path },
    );
  });
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new RaymondError(
      'ERR_STATE_FILE',
      'the state file is not valid JSON (corrupt or truncated)',
      { file: path },
    );
  }
  if (!stateFileLike.check(data))
    throw new RaymondError('ERR_STATE_FILE', 'not a Raymond state file', { file: path });
  const state = data;
  if (state.version !== 1) {
    throw new RaymondError(
      'ERR_STATE_FILE',
      `state file version ${JSON.stringify(state.version)} is not one this build knows (1); use the Raymond that wrote it`,
      { file: path },
    );
  }
  checkShape(state, path);
  const journal = await readFile(journalFilePath(path), 'utf8').catch(() => undefined);
  // checkShape has checked the snapshot as a whole; the journal's fold is checked again.
  if (journal === undefined) return expandRead(state as WrittenState, path);
  const folded = applyJournal(state as WrittenState, journal, journalFilePath(path));
  checkShape(folded, path);
  return expandRead(folded, path);
}

/**
 * A state as written, given back what was left out (machines/written-agent.ts),
 * an agent's task folder as the default one of the run's project.
 */
export function expandRead(state: WrittenState, path: string): WorkflowState {
  const root = projectRootOf(path);
  const pattern = state.options.task_folder_pattern ?? DEFAULT_TASK_FOLDER_PATTERN;
  const folder = taskFolderPaths(root, pattern, state.workflow_id);
  return expandState(state, (id) => folder(id, 1));
}

/** The state file's schema (src/state/state-schema.ts), and an id that is one. */
function checkShape(state: unknown, path: string): WorkflowState {
  const problem = stateFileProblem(state);
  if (problem !== undefined)
    throw new RaymondError('ERR_STATE_FILE', `the state file is damaged: ${problem}`, {
      file: path,
    });
  const { workflow_id: id } = state as WorkflowState;
  if (!WORKFLOW_ID.test(id))
    throw new RaymondError(
      'ERR_STATE_FILE',
      `the state file is damaged: workflow_id ${JSON.stringify(id).slice(0, 140)} is not a run id`,
      { file: path },
    );
  return state as WorkflowState;
}
